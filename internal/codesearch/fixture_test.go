package codesearch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/files"
)

// writeTree creates files under dir from a map of slash paths to content;
// a path ending in "/" is an empty directory.
func writeTree(t testing.TB, dir string, tree map[string]string) {
	t.Helper()
	for p, content := range tree {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if p[len(p)-1] == '/' {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tempDir is a fresh directory with its symlinks resolved (a workspace
// root must be).
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// engineOn opens an engine on dir with limits raised so whole listings
// can be compared.
func engineOn(t testing.TB, dir string, o Options) *Engine {
	t.Helper()
	ws, err := files.Open(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	e := New(ws, o)
	e.maxLimit = 1 << 20
	return e
}

// setMtimes gives the files modification times one second apart in the
// order given, the first the newest.
func setMtimes(t testing.TB, dir string, paths ...string) {
	t.Helper()
	base := time.Now().Add(-time.Hour)
	for i, p := range paths {
		mt := base.Add(-time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}
