//go:build unix

package exectest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// TestWrittenWhileForking writes and runs a script over and over while
// other goroutines start children as fast as they can: each of those forks
// would hold the script's write descriptor until it execs, and running the
// script then fails with "text file busy". Every other script is written
// with os.WriteFile and then renewed.
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
	for i := range 100 {
		dir := t.TempDir()
		script := filepath.Join(dir, "script")
		write := func() error { return WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755) }
		if i%2 == 1 { // as a testscript archive is written, then renewed
			write = func() error {
				if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
					return err
				}
				return Renew(dir)
			}
		}
		if err := write(); err != nil {
			t.Fatal(err)
		}
		if err := exec.Command(script).Run(); errors.Is(err, syscall.ETXTBSY) {
			t.Fatalf("run %d: %v", i, err)
		} else if err != nil {
			t.Fatal(err)
		}
	}
}
