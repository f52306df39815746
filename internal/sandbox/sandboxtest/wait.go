package sandboxtest

import (
	"path/filepath"
	"testing"
	"time"
)

// RealTempDir is t's temp dir with its symlinks resolved, as the sandbox
// binds and compares real paths.
func RealTempDir(t testing.TB) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// WaitUntil polls cond for up to 10 s; the test fails, saying what did not
// happen, if it never holds.
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s: %s", what)
		}
	}
}
