// Package piped starts the sidecar's long-lived children — a plugin's MCP
// server, a language server — under the session's sandbox on three pipes of
// their own, and resolves the commands their configurations name. Plugins
// and language servers share it so that a child's exit reads the same and
// its stop ends its whole tree the same way.
package piped

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"steerable.dev/sidecar/internal/sandbox"
)

// Child is a started long-lived child as the plugins and the language
// servers use it; *Process is one, and their tests fake it.
type Child interface {
	Stdin() io.WriteCloser
	Stdout() io.ReadCloser
	Stderr() io.ReadCloser
	// Done is closed once the process has exited and been reaped.
	Done() <-chan struct{}
	// Exit describes how it ended ("exit status 1", "killed by SIGKILL");
	// valid after Done.
	Exit() string
	// Stop asks it to end (SIGTERM), waits up to grace, then kills the
	// whole tree and waits for it.
	Stop(grace time.Duration)
}

var _ Child = (*Process)(nil)

// Process is a long-lived child on three pipes of its own, with its exit in
// words and a stop that ends its whole tree.
type Process struct {
	p                     *sandbox.Process
	stdin, stdout, stderr *os.File
}

// Start starts c under sb on three fresh pipes (c's own Stdin, Stdout and
// Stderr are replaced). They are the os.Pipe kind, so a blocked read or
// write honours Close and deadlines; the child's ends are closed here once
// it runs.
func Start(sb *sandbox.Sandbox, c sandbox.Command) (*Process, error) {
	var parent, child [3]*os.File
	closeAll := func(fs [3]*os.File) {
		for _, f := range fs {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(parent)
			closeAll(child)
			return nil, err
		}
		if i == 0 { // stdin: the child reads
			parent[i], child[i] = w, r
		} else {
			parent[i], child[i] = r, w
		}
	}
	c.Stdin, c.Stdout, c.Stderr = child[0], child[1], child[2]
	p, err := sb.Start(c)
	closeAll(child)
	if err != nil {
		closeAll(parent)
		return nil, err
	}
	return &Process{p: p, stdin: parent[0], stdout: parent[1], stderr: parent[2]}, nil
}

func (p *Process) Stdin() io.WriteCloser { return p.stdin }
func (p *Process) Stdout() io.ReadCloser { return p.stdout }
func (p *Process) Stderr() io.ReadCloser { return p.stderr }

// Done is closed once the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.p.Done() }

// Exit says how the child ended ("exit status 1", "killed by SIGKILL", a
// limit it hit); valid after Done.
func (p *Process) Exit() string {
	e, err := p.p.Wait()
	s := fmt.Sprintf("exit status %d", e.Code)
	switch {
	case e.Signal != "":
		s = "killed by " + e.Signal
	case e.Code < 0:
		s = fmt.Sprintf("wait failed: %v", err)
	}
	if e.Limit != "" {
		s += fmt.Sprintf("; it hit the %s limit (STEERABLE_SANDBOX_MAX_PROCS, STEERABLE_SANDBOX_MAX_MEMORY_MB)", e.Limit)
	}
	return s
}

// Stop asks the child to end (SIGTERM), waits up to grace, then kills the
// whole tree and waits for it (grace 0: killed at once).
func (p *Process) Stop(grace time.Duration) {
	if grace <= 0 {
		p.p.Kill()
		<-p.p.Done()
	} else {
		p.p.Stop(grace)
	}
	p.stdin.Close()
}

// LookCommand resolves a configured command: one without a slash on the
// sidecar's PATH; one with a slash must exist.
func LookCommand(cmd string) (string, error) {
	if filepath.IsAbs(cmd) {
		if _, err := os.Stat(cmd); err != nil {
			return "", fmt.Errorf("command %s: %w", cmd, err)
		}
		return cmd, nil
	}
	p, err := exec.LookPath(cmd)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("command %q is not on the sidecar's PATH", cmd)
		}
		return "", err
	}
	return filepath.Abs(p)
}
