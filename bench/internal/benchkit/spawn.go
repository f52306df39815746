package benchkit

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"time"
)

// ReadyPrefix starts the line the sidecar writes on stderr once it serves
// requests; its spawn-to-ready figure ends there.
const ReadyPrefix = "__SIDECAR_READY__:"

// readyWait bounds the wait for the ready line: a child that neither writes
// it nor exits is killed, so that a broken build cannot hang a report.
var readyWait = 30 * time.Second

// StartReady starts cmd as a Proc and waits for a stderr line starting with
// ReadyPrefix. It returns the time from just before the start to the moment
// that line was read: the clock stops there, before the caller does anything
// else, clean-up included. The rest of stderr is discarded. A child without
// the line within readyWait is killed.
func StartReady(cmd *exec.Cmd) (*Proc, time.Duration, error) {
	p, err := attach(cmd)
	if err != nil {
		return nil, 0, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, 0, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	timeout := time.AfterFunc(readyWait, func() { cmd.Process.Kill() })
	lines := bufio.NewScanner(stderr)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		if bytes.HasPrefix(lines.Bytes(), []byte(ReadyPrefix)) {
			d := time.Since(t0)
			timeout.Stop()
			p.drain(stderr)
			return p, d, nil
		}
	}
	timeout.Stop()
	p.drain(stderr)
	p.Close()
	return nil, 0, fmt.Errorf("%s: no %q line on stderr", cmd.Path, ReadyPrefix)
}
