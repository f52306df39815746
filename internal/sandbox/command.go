package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"steerable.dev/sidecar/internal/sandbox/launch"
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
	spec, lim, err := s.prepare(c)
	if err != nil {
		return nil, err
	}
	return s.launcher.Start(spec, c.io(), lim)
}

// Run starts c confined (stdin /dev/null unless given, stdout and stderr
// captured), waits for it under the timeout and ctx, and kills what is
// left before returning, whatever happened: nothing the command started
// outlives the call. The error is non-nil only when the command could not
// start (ErrUnavailable when the sandbox refuses every child).
func (s *Sandbox) Run(ctx context.Context, c Command, opts RunOptions) (Result, error) {
	if c.Stdout != nil || c.Stderr != nil {
		return Result{}, errCaptured
	}
	spec, lim, err := s.prepare(c)
	if err != nil {
		return Result{}, err
	}
	return s.launcher.Run(ctx, spec, c.io(), lim, opts)
}

// InferLimit is Run's inference for a failure that the caller learnt of
// another way: run_code's program reports its exception over the bridge
// and exits 0, so failure is its error and traceback. A call whose Limit
// is set already keeps it.
func (s *Sandbox) InferLimit(res *Result, c Command, failure string) {
	s.launcher.InferLimit(res, s.limitsOf(c).perCall(), failure)
}

// limitsOf are the limits c runs under.
func (s *Sandbox) limitsOf(c Command) Limits {
	if c.Policy != nil {
		return c.Policy.Limits
	}
	return s.Policy().Limits
}

// prepare is the launch spec of c under its policy, rewritten by the
// backend that confines it, and the limits it runs under.
func (s *Sandbox) prepare(c Command) (launch.Spec, launch.Limits, error) {
	backend := s.backendFor(c)
	if backend == nil {
		return launch.Spec{}, launch.Limits{}, ErrUnavailable
	}
	if len(c.Argv) == 0 {
		return launch.Spec{}, launch.Limits{}, ErrNoCommand
	}
	if _, err := s.tmpDir(); err != nil {
		return launch.Spec{}, launch.Limits{}, err
	}
	path, err := s.resolve(c)
	if err != nil {
		return launch.Spec{}, launch.Limits{}, err
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
	spec, err := backend.Prepare(launch.Exec{Path: path, Args: c.Argv, Dir: c.Dir, Env: env, ExtraFiles: len(c.ExtraFiles),
		SharedNet: s.launcher.SharedNet()}, p)
	return spec, p.Limits.perCall(), err
}

// io is c's caller-owned side.
func (c Command) io() launch.IO {
	return launch.IO{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, ExtraFiles: c.ExtraFiles, TTY: c.TTY}
}

// resolve finds c's program: as given when absolute; on PATH for a
// confined child (the model's command may run what the workspace holds);
// only a trusted program (trusted.go) for an unconfined one, which runs
// with the sidecar's rights.
func (s *Sandbox) resolve(c Command) (string, error) {
	path := c.Argv[0]
	switch {
	case filepath.IsAbs(path):
		return path, nil
	case c.Unconfined:
		return s.trusted(path)
	}
	return exec.LookPath(path)
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
