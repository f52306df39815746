package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"sync"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
)

// fileEnv is what the file tools (read_file, write_file, edit_file,
// apply_patch) share: the workspace, the session's read state and the
// limits. Every tool resolves paths through it, holds the read-state lock
// of each path from its version check to its state update, and maps file
// errors to follow-up results that say what to do.
type fileEnv struct {
	ws          *files.Workspace
	state       *readstate.Store
	requireRead bool
	maxBytes    int64
	media       MediaOptions
}

// origin names a call for the workspace's recorder (checkpoints).
func origin(call Call, tool string) files.Origin { return files.Origin{CallID: call.ID, Tool: tool} }

// maxDiffChars bounds the diff a result carries; the file itself is
// written whole.
const maxDiffChars = 100_000

// versionSchema is the JSON Schema of a version token.
const versionSchema = `{"type":"string","pattern":"^[0-9a-f]{64}$","description":"the version read_file (or your last write) reported; the write is refused as a conflict if the file is no longer at this version"}`

// resolve turns the model's path into the real path, or a follow-up.
func (e fileEnv) resolve(p string) (string, error) {
	abs, err := e.ws.Resolve(p)
	if err != nil {
		return "", refuse(nil, "%v", err)
	}
	return abs, nil
}

// onDisk is a file's state under its lock.
type onDisk struct {
	exists  bool
	version string
	content string // when loaded
	mode    fs.FileMode
}

// load reads a file whole (edit_file, apply_patch updates), refusing one
// over the size limit or one that is not text. Each pass over a large file
// takes tens of milliseconds, so the context is checked between them.
func (e fileEnv) load(ctx context.Context, abs string) (onDisk, error) {
	b, fi, err := e.ws.ReadFile(abs, e.maxBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return onDisk{}, nil
	case err != nil:
		return onDisk{}, fileFailure(abs, err)
	case ctx.Err() != nil:
		return onDisk{}, cancelled(abs)
	}
	var nt *files.NotTextError
	if errors.As(files.CheckText(b), &nt) {
		return onDisk{}, e.notText(abs, nt, int64(len(b)))
	}
	version, err := readstate.OfStringContext(ctx, b)
	if err != nil {
		return onDisk{}, cancelled(abs)
	}
	return onDisk{exists: true, version: version, content: b, mode: fi.Mode()}, nil
}

// hash finds a file's version without holding it in memory (write_file,
// apply_patch deletes); a cancelled call stops it.
func (e fileEnv) hash(ctx context.Context, abs string) (onDisk, error) {
	f, fi, err := e.ws.OpenRead(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return onDisk{}, nil
	case err != nil:
		return onDisk{}, fileFailure(abs, err)
	}
	defer f.Close()
	h := readstate.NewHasher()
	if err := files.Hash(ctx, h, f, fi.Size()); err != nil {
		return onDisk{}, fileFailure(abs, err)
	}
	return onDisk{exists: true, version: h.Version(), mode: fi.Mode()}, nil
}

// refresh records the version an edit or a patch left abs at. A partial
// view stays partial: the edit changed what it quoted, and the text the
// model never saw is still unseen (SPEC §4.1, gate 3).
func (e fileEnv) refresh(abs, version string) {
	e.state.Set(abs, readstate.Entry{Version: version, Partial: e.partial(abs)})
}

// partial reports whether the session's last read of abs was partial.
func (e fileEnv) partial(abs string) bool {
	tracked, _ := e.state.Get(abs)
	return tracked.Partial
}

// cancelled is the result of a call stopped by its context before it
// wrote anything; the host sees the cancellation itself, this only keeps
// the lock from being held for nothing.
func cancelled(abs string) error {
	return refuse(map[string]any{"path": abs}, "the call was cancelled; %s was not changed", abs)
}

// checkSize refuses a result over the size limit.
func (e fileEnv) checkSize(abs, content string) error {
	if int64(len(content)) <= e.maxBytes {
		return nil
	}
	return refuse(nil, "%s would be %d bytes, over the %d-byte limit (STEERABLE_FILE_MAX_BYTES)", abs, len(content), e.maxBytes)
}

// fileFailure maps a file-system error to a follow-up naming the fix.
func fileFailure(abs string, err error) error {
	data := map[string]any{"path": abs}
	switch {
	case errors.Is(err, files.ErrNotRegular), errors.Is(err, files.ErrTooLarge), errors.Is(err, files.ErrEscapes):
		return refuse(data, "%v", err)
	case errors.Is(err, fs.ErrPermission):
		return refuse(data, "%s: permission denied; the sidecar cannot access it, so pick another path or change its permissions with bash", abs)
	}
	return refuse(data, "%s: %v; check the path, or inspect it with bash", abs, err)
}

// notText refuses binary content; no version is recorded. The hint names
// commands that exist wherever bash runs (od and head are in every
// coreutils and busybox; file and xxd are missing from the Docker image),
// and python3 only where it is installed.
func (e fileEnv) notText(abs string, nt *files.NotTextError, size int64) error {
	q := shellQuote(e.ws.Rel(abs))
	hint := fmt.Sprintf("inspect it with bash (head -c 512 %s | od -A d -c, or od -A d -t x1 %s | head -n 20)", q, q)
	if hasPython3() {
		hint += " and change it with a python3 script"
	}
	return refuse(map[string]any{"path": abs, "bytes": size, "type": nt.Type},
		"%s is not a text file (%s, %d bytes, %s): the file tools handle UTF-8 text only; %s", abs, nt.Type, size, nt.Reason, hint)
}

// hasPython3 reports whether python3 is on the PATH bash runs with, looked
// up once, at the first refusal that would name it.
var hasPython3 = sync.OnceValue(func() bool {
	_, err := exec.LookPath("python3")
	return err == nil
})

// shellQuote quotes a path for a bash command line where it needs it.
func shellQuote(p string) string {
	if p != "" && strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/+") == "" {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// diffLabels name the two sides of a diff git-style (a/rel, b/rel) for
// files in the workspace, by absolute path otherwise.
func (e fileEnv) diffLabels(from, to string) (string, string) {
	label := func(prefix, abs string) string {
		if rel := e.ws.Rel(abs); rel != abs {
			return prefix + rel
		}
		return abs
	}
	return label("a/", from), label("b/", to)
}

// clipDiff bounds a diff at maxDiffChars, cutting at a line start.
func clipDiff(d string) string {
	if len(d) <= maxDiffChars {
		return d
	}
	cut := strings.LastIndexByte(d[:maxDiffChars], '\n') + 1
	return strings.TrimSuffix(d[:cut], "\n") + clip.Marker(int64(len(d)-cut), clip.Bytes)
}

// plural is "1 edit", "2 edits".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
