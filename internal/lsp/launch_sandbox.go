package lsp

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

// SandboxLauncher starts servers under the session's sandbox: the
// session's policy made writable only below the server's own directories
// (the workspace and the other writable roots stay readable, and visible
// under bwrap's private /tmp), the network off, the deny list and the
// per-call limits kept. Every server gets the launcher's lifetime
// guarantee: stopping it, or the sidecar's death, ends its whole tree.
type SandboxLauncher struct{ sb *sandbox.Sandbox }

// NewSandboxLauncher launches under sb.
func NewSandboxLauncher(sb *sandbox.Sandbox) *SandboxLauncher { return &SandboxLauncher{sb: sb} }

// Launch implements Launcher.
func (l *SandboxLauncher) Launch(argv []string, dir string, env []string, writable []string) (Process, error) {
	if l.sb.Unavailable() {
		return nil, fmt.Errorf("the session's sandbox refuses to start processes (%s)", l.sb.Summary())
	}
	path, err := lookPath(argv[0])
	if err != nil {
		return nil, err
	}
	for _, w := range writable {
		if err := os.MkdirAll(w, 0o700); err != nil {
			return nil, err
		}
	}
	pol := l.sb.Policy().WithWritableOnly(writable...).WithNetwork(false)
	argv = append([]string{path}, argv[1:]...)
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
	p, err := l.sb.Start(sandbox.Command{Argv: argv, Dir: dir, Env: env, Policy: &pol,
		Stdin: child[0], Stdout: child[1], Stderr: child[2]})
	closeAll(child)
	if err != nil {
		closeAll(parent)
		return nil, err
	}
	return &sandboxProcess{p: p, stdin: parent[0], stdout: parent[1], stderr: parent[2]}, nil
}

// lookPath resolves a command without a slash on the sidecar's PATH.
func lookPath(cmd string) (string, error) {
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

type sandboxProcess struct {
	p                     *sandbox.Process
	stdin, stdout, stderr *os.File
}

func (p *sandboxProcess) Stdin() io.WriteCloser { return p.stdin }
func (p *sandboxProcess) Stdout() io.ReadCloser { return p.stdout }
func (p *sandboxProcess) Stderr() io.ReadCloser { return p.stderr }
func (p *sandboxProcess) Done() <-chan struct{} { return p.p.Done() }

// Exit implements Process.
func (p *sandboxProcess) Exit() string {
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

// Stop implements Process: SIGTERM, grace, then the whole tree is killed.
func (p *sandboxProcess) Stop(grace time.Duration) {
	if grace <= 0 {
		p.p.Kill()
		<-p.p.Done()
	} else {
		p.p.Stop(grace)
	}
	p.stdin.Close()
}
