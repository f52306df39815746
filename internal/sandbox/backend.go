package sandbox

import (
	"errors"
	"os"
)

// Cmd is a child process to start: an absolute Path, its argv (Args[0] is
// the program name the child sees), working directory and environment.
// ExtraFiles is how many descriptors the caller passes from fd 3 on, so a
// backend places its own after them. SharedNet says that the launcher can
// start the child in the session's empty network namespace (netns_linux.go).
type Cmd struct {
	Path       string
	Args       []string
	Dir        string
	Env        []string
	ExtraFiles int
	SharedNet  bool
}

// Launch is a prepared child: what to execute, the descriptors the backend
// adds after the caller's (the launcher closes them once the child has
// started), and what to apply to the OS thread that starts the child (the
// thread-scoped Landlock mode: the child inherits it, the sidecar's other
// threads stay unrestricted). EmptyNet: the child must start in the
// session's empty network namespace, which stands in for one of its own.
type Launch struct {
	Cmd
	Files    []*os.File
	Confine  func() error
	EmptyNet bool
}

// Backend confines one child process. Prepare is a pure rewrite plus the
// thread confinement, so every child — bash, the run_code interpreter, a
// plugin — goes through the same code.
type Backend interface {
	// Name is the backend's STEERABLE_SANDBOX value.
	Name() string
	// Available says why the backend cannot work here (a missing binary, a
	// kernel without the feature), without starting anything; nil when it
	// may. The boot probe then proves it with a real run.
	Available() error
	// Prepare returns the launch that runs cmd under p.
	Prepare(cmd Cmd, p Policy) (Launch, error)
	// Enforcement says how much of p this backend enforces here.
	Enforcement(p Policy) Enforcement
}

// moder is a backend with more than one way to apply the same policy; the
// selection tries its modes in order and keeps the first whose probe
// passes (Landlock: thread-scoped, then the re-exec helper).
type moder interface {
	Backend
	Modes() []Backend
	Mode() string
}

// ErrUnavailable means no backend that may be used works here: the backend
// named in STEERABLE_SANDBOX fails its probe, or none does and
// STEERABLE_SANDBOX_REQUIRE=1 forbids running unconfined. Tools report it
// as the terminal error "sandbox_unavailable".
var ErrUnavailable = errors.New("sandbox_unavailable")

// HelperCommand is the hidden subcommand through which the binary
// re-executes itself to confine itself and then exec the target (the
// Landlock backend's fallback mode). It is not listed in --help.
const HelperCommand = "__sandbox-exec"
