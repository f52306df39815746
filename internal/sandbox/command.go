package sandbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Command is one child to run confined: by Sandbox.Run (bash: captured
// output, bounded by a timeout) or Sandbox.Start (long-lived: run_code's
// interpreter, a plugin's MCP server, an interactive shell on a PTY).
// Both take the same path: the backend's Prepare, then the launcher (the
// locked thread, the PID namespace, the limits).
type Command struct {
	// Argv is the program and its arguments; Argv[0] is resolved on the
	// sidecar's PATH when it is not absolute.
	Argv []string
	// Dir is the working directory (absolute).
	Dir string
	// Env is the child's whole environment; nil means Env(EnvScrubbed).
	Env []string
	// Policy replaces the session's for this child; nil means
	// Sandbox.Policy(). Derive it from the session's (WithWritable,
	// WithNetwork) so the deny list and the limits carry over. The backend
	// stays the session's.
	Policy *Policy
	// Unconfined runs the child with backend none (a plugin whose manifest
	// says sandbox:"none"): the sidecar's own rights, but the launcher's
	// lifetime guarantee, the limits and the environment still apply.
	Unconfined bool
	// Stdin, Stdout and Stderr are caller-owned; nil means /dev/null (Run
	// captures Stdout and Stderr itself and refuses them here). As with
	// exec.Cmd, an *os.File is handed over as is; anything else is copied
	// by a goroutine.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// ExtraFiles become fds 3, 4, … in the child (run_code's bridge).
	ExtraFiles []*os.File
	// TTY, when set, is the child's controlling terminal (a PTY's
	// follower end, e.g. from github.com/creack/pty): the child is a
	// session leader with it as its terminal, and it is Stdin — and Stdout
	// and Stderr unless those are given. The caller keeps the leader end.
	TTY *os.File
	// Inherit skips the backend for this child: the host already confines
	// the sidecar (STEERABLE_SIDECAR_CONFINED=1, layer 1) and a second
	// sandbox cannot be applied inside it, so the child inherits the
	// sidecar's boundary (run_code reports Inherited). The launcher's
	// lifetime guarantee and limits, and Env, still apply; the session's
	// backend being unavailable does not refuse it.
	Inherit bool
}

// ErrNoCommand is returned for an empty Argv.
var ErrNoCommand = errors.New("no command to run")

// errCaptured is Run's refusal of caller-owned output.
var errCaptured = errors.New("Run captures stdout and stderr itself; use Start for caller-owned output")

// Start starts c confined and returns it running. The caller owns the
// process: it ends on its own, by Process.Stop or Kill, or with the
// sidecar (Close, or the kernel when the sidecar dies). ErrUnavailable
// when the sandbox refuses every child.
func (s *Sandbox) Start(c Command) (*Process, error) {
	backend := s.backendFor(c)
	if backend == nil {
		return nil, ErrUnavailable
	}
	if len(c.Argv) == 0 {
		return nil, ErrNoCommand
	}
	if _, err := s.tmpDir(); err != nil {
		return nil, err
	}
	path := c.Argv[0]
	if !filepath.IsAbs(path) {
		var err error
		if path, err = exec.LookPath(path); err != nil {
			return nil, err
		}
	}
	env := c.Env
	if env == nil {
		env = s.Env(EnvScrubbed)
	}
	p := s.Policy()
	if c.Policy != nil {
		p = c.Policy.normalized()
	}
	if c.TTY != nil {
		p.Terminal = ownTerminal(c.TTY)
	}
	la, err := backend.Prepare(Cmd{Path: path, Args: c.Argv, Dir: c.Dir, Env: env, ExtraFiles: len(c.ExtraFiles),
		SharedNet: s.launcher.emptyNet != nil}, p)
	if err != nil {
		return nil, err
	}
	return s.launcher.start(la, childIO{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, ExtraFiles: c.ExtraFiles, TTY: c.TTY}, p.Limits)
}

// backendFor is the backend that confines c: none for an inherited
// confinement, else the session's (none for an unconfined child); nil when
// the sandbox refuses every child.
func (s *Sandbox) backendFor(c Command) Backend {
	switch {
	case c.Inherit:
		<-s.selected // the launcher's mode and cgroups
		return None{}
	case s.Unavailable():
		return nil
	case c.Unconfined:
		return None{}
	}
	return s.backend
}

// ownTerminal is the path of tty, a PTY's follower, when it is one: the
// terminal its command may open by name (Policy.Terminal).
func ownTerminal(tty *os.File) string {
	name := filepath.Clean(tty.Name())
	if !strings.HasPrefix(name, "/dev/pts/") {
		return ""
	}
	return name
}
