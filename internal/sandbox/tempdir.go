package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
)

// NewSessionDir creates the per-session temp dir under parent (the system
// temp dir): private to the sidecar's user (0700), writable by its children
// (exported to them as TMPDIR, TEMP and TMP), removed by Sandbox.Close. The
// path is resolved, because the backends bind and compare real paths.
func NewSessionDir(parent string) (string, error) {
	dir, err := os.MkdirTemp(parent, "steerable-session-")
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
