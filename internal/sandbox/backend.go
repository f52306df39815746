package sandbox

import (
	"errors"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

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
	// Prepare returns the launch spec that runs e under p.
	Prepare(e launch.Exec, p Policy) (launch.Spec, error)
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
