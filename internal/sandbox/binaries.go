package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
)

// A sidecar whose binary lies in a writable root is confined only until
// the host starts it again: a command can replace the file, or a symlink
// to it, and the next session runs the model's program with the host's
// rights. Nothing here can prevent that (the host chose where it starts
// the binary from), so the selection reports it: a note in Summary, which
// makes checks.sandbox warn, and ExposedBinaries for the boot log.

// exposedBinaries returns the notes for the paths among bins (the running
// executable, the path the host invoked) that lie in one of roots: the
// path itself with its parent's symlinks resolved, so a symlink in the
// workspace counts even when its target lies outside, and its target.
func exposedBinaries(bins, roots []string) []string {
	var notes []string
	seen := map[string]bool{}
	for _, b := range bins {
		if b == "" || !filepath.IsAbs(b) {
			continue
		}
		for _, p := range []string{resolveParent(b), resolveAll(b)} {
			if seen[p] || !within(roots, p) {
				continue
			}
			seen[p] = true
			notes = append(notes, fmt.Sprintf("the sidecar's binary %s lies in a writable root, so a command can replace what the host "+
				"starts next time; install the sidecar outside the workspace and the temp dir", p))
		}
	}
	return notes
}

func resolveParent(p string) string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, filepath.Base(p))
}

func resolveAll(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// ExposedBinaries are the notes of Options.Binaries that lie in a
// writable root of the session (empty: none).
func (s *Sandbox) ExposedBinaries() []string {
	s.resolvePolicy()
	return slices.Clone(s.exposed)
}
