package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// sessionDirPrefix starts every session temp dir's name; the owner tag and
// a random suffix follow: steerable-session-<owner tag>-<random>.
const sessionDirPrefix = "steerable-session-"

// NewSessionDir creates the per-session temp dir under parent (the system
// temp dir): private to the sidecar's user (0700), writable by its children
// (exported to them as TMPDIR, TEMP and TMP), removed by Sandbox.Close. Its
// name carries this process's owner tag, so a later sidecar can remove it
// if this one is killed before Close (RemoveStaleSessionDirs). The path is
// resolved, because the backends bind and compare real paths.
func NewSessionDir(parent string) (string, error) {
	dir, err := os.MkdirTemp(parent, sessionDirPrefix+ownerTag()+"-")
	if err != nil {
		return "", fmt.Errorf("creating the session temp dir under %s: %w", parent, err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("resolving the session temp dir: %w", err)
	}
	return real, nil
}

// RemoveStaleSessionDirs removes the session temp dirs under parent that
// belong to this user and whose owner is provably gone (ownerGone: a
// SIGKILLed sidecar never ran Close). Dirs of live sidecars, of other
// users, of other PID namespaces and without an owner tag (older
// versions) are left alone. It returns how many it removed.
func RemoveStaleSessionDirs(parent string) int {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), sessionDirPrefix)
		i := strings.LastIndexByte(rest, '-')
		if !ok || !e.IsDir() || i < 0 || !ownerGone(rest[:i]) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if info, err := os.Lstat(dir); err != nil || !info.IsDir() || !ownedByMe(info) {
			continue
		}
		if removeTree(dir) == nil {
			n++
		}
	}
	return n
}

// removeTree removes dir even when a child left directories without write
// permission in it: they are made writable first.
func removeTree(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// RemoveTree removes dir like the session temp dir is removed: even when a
// child left directories without write permission in it (run_code's
// per-call dirs).
func RemoveTree(dir string) error { return removeTree(dir) }
