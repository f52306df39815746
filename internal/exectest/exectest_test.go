//go:build unix

package exectest

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// TestWrittenWhileForking writes and runs a script over and over while
// other goroutines start children as fast as they can: each of those forks
// would hold the script's write descriptor until it execs, and running the
// script then fails with "text file busy".
func TestWrittenWhileForking(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	var forks sync.WaitGroup
	for range 4 {
		forks.Add(1)
		go func() {
			defer forks.Done()
			for ctx.Err() == nil {
				exec.Command("true").Run()
			}
		}()
	}
	defer forks.Wait()
	defer stop()
	dir := t.TempDir()
	for i := range 100 {
		script := filepath.Join(dir, "s"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		if err := WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := exec.Command(script).Run(); errors.Is(err, syscall.ETXTBSY) {
			t.Fatalf("run %d: %v", i, err)
		} else if err != nil {
			t.Fatal(err)
		}
	}
}
