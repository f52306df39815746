package tools

import (
	"steerable.dev/sidecar/internal/readstate"
)

// Gate codes (data.code of a refused write).
const (
	codeConflict    = "conflict"
	codeNotRead     = "not_read"
	codePartialRead = "partial_read"
)

// gate runs the read-before-write gates of SPEC §4.1, in order, for a write
// to abs whose current state is cur; the caller holds abs's lock.
// wholeWrite is set for write_file, which replaces the file blindly; edits
// and patches quote what they change.
//
//  1. An explicit expectedVersion must equal the current version; it
//     replaces the checks below except the partial gate.
//  2. Hard gate: an existing file this session never read or wrote.
//  3. Partial gate: the last read showed only part of the file.
//  4. Auto-CAS: the tracked version differs from the file on disk.
//
// A file that does not exist (new, or vanished since it was read) passes,
// unless an expectedVersion was given for it.
func (e fileEnv) gate(abs string, cur onDisk, expected string, wholeWrite bool) error {
	tracked, known := e.state.Get(abs)
	if expected != "" {
		switch {
		case !cur.exists:
			return conflict(abs, expected, "", "conflict: %s does not exist, but expectedVersion %s was given; check the path with read_file, or omit expectedVersion to create the file", abs, short(expected))
		case cur.version != expected:
			return conflict(abs, expected, cur.version, "conflict: %s is no longer at expectedVersion %s (it is now %s); read it again and retry with the new version", abs, short(expected), short(cur.version))
		}
		return partialGate(abs, tracked, known && wholeWrite)
	}
	if !cur.exists {
		return nil
	}
	if !known {
		if !e.requireRead {
			return nil
		}
		return refuse(map[string]any{"path": abs, "code": codeNotRead}, "%s exists but was never read in this session; read it first, then write with the read version (read_file returns it; pass it as expectedVersion), or, from a trusted one-shot script, set STEERABLE_REQUIRE_READ_BEFORE_WRITE=0", abs)
	}
	if r := partialGate(abs, tracked, wholeWrite); r != nil {
		return r
	}
	if tracked.Version != cur.version {
		return conflict(abs, tracked.Version, cur.version, "conflict: %s changed since it was read (expected %s, found %s); read it again", abs, short(tracked.Version), short(cur.version))
	}
	return nil
}

// partialGate refuses a whole-file write after a partial read.
func partialGate(abs string, tracked readstate.Entry, wholeWrite bool) error {
	if !wholeWrite || !tracked.Partial {
		return nil
	}
	return refuse(map[string]any{"path": abs, "code": codePartialRead}, "only part of %s was read (the view was clipped or a line range), so overwriting it whole would destroy text you have not seen; change it with edit_file, or read all of it first", abs)
}

// conflict is a refused compare-and-swap; actual is "" for a missing file.
func conflict(abs, expected, actual, format string, args ...any) error {
	var act any
	if actual != "" {
		act = actual
	}
	return refuse(map[string]any{"path": abs, "code": codeConflict, "expectedVersion": expected, "actualVersion": act}, format, args...)
}

// short abbreviates a version for messages; data carries it whole.
func short(v string) string {
	if len(v) > 12 {
		return v[:12]
	}
	return v
}
