package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
)

// benchStderrUnread: a host that pipes stderr and never reads it. At
// debug level a blocking logger would stop every reply once the pipe was
// full and nothing but SIGKILL would end the process. Here: calls completed of 5,000 sequential read_file calls (each
// must be answered within 3 s), then how long SIGTERM takes to end it.
func benchStderrUnread(bin, dir string) {
	const calls = 5000
	path := filepath.Join(dir, "read4k.txt")
	r, w, err := os.Pipe()
	must(err)
	defer r.Close() // held open, never read
	cmd := exec.Command(bin, "--cwd", dir, "--log-level", "debug")
	cmd.Stderr = w
	p := start(cmd)
	w.Close()
	must(p.AwaitNotification("lifecycle.ready"))
	var done atomic.Int64
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for range calls {
			if _, err := p.Invoke("read_file", map[string]any{"path": path}); err != nil {
				return
			}
			done.Add(1)
		}
	}()
	for last := int64(-1); ; {
		select {
		case <-finished:
		case <-time.After(3 * time.Second):
			if n := done.Load(); n != last {
				last = n
				continue
			}
		}
		break
	}
	completed := done.Load()
	t0 := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	exit, exitedInTime := "not within 10 s", false
	select {
	case <-exited:
		d := time.Since(t0)
		exit, exitedInTime = fmtDur(d), d < 5*time.Second
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
	fmt.Printf("%-44s %12s %12s\n", "stderr never read, --log-level debug", "calls done", "SIGTERM→exit")
	fmt.Printf("%-44s %7d/%d %12s\n", "steerable-sidecar", completed, calls, exit)
	fmt.Printf("target: every call answered, exit within the 5 s grace: %s\n\n", verdict(completed == calls && exitedInTime))
}
