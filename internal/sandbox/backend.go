package sandbox

import (
	"errors"
	"path/filepath"
	"slices"
)

// Policy is what a confined child may do. The zero value allows writing
// nowhere and no network.
type Policy struct {
	// WritableRoots are absolute directories the child may write below
	// (the workspace and the session temp dir). Everything else is
	// read-only, except the null-style devices.
	WritableRoots []string
	// Network lets the child open IP sockets.
	Network bool
}

// normalized returns the policy with its roots cleaned, deduplicated and
// sorted by length, so nested roots are bound after their parents.
func (p Policy) normalized() Policy {
	roots := make([]string, 0, len(p.WritableRoots))
	for _, r := range p.WritableRoots {
		roots = append(roots, filepath.Clean(r))
	}
	slices.Sort(roots)
	roots = slices.Compact(roots)
	slices.SortStableFunc(roots, func(a, b string) int { return len(a) - len(b) })
	return Policy{WritableRoots: roots, Network: p.Network}
}

// Enforcement says how much of a Policy a backend enforces on the running
// system (data._sandbox.enforcement).
type Enforcement string

// The three levels. Full means every rule of the policy holds; partial
// means some rule is not enforced by this kernel or platform; none means
// the child runs with the sidecar's own rights.
const (
	EnforcementFull    Enforcement = "full"
	EnforcementPartial Enforcement = "partial"
	EnforcementNone    Enforcement = "none"
)

// Cmd is a child process to start: an absolute Path, its argv (Args[0] is
// the program name the child sees), working directory and environment.
type Cmd struct {
	Path string
	Args []string
	Dir  string
	Env  []string
}

// Backend confines one child process. It is a pure rewrite: Wrap turns the
// command into one that applies the policy before the target runs, so any
// child — bash, the run_code interpreter — goes through the same code.
type Backend interface {
	// Name is the backend's STEERABLE_SANDBOX value.
	Name() string
	// Available says why the backend cannot work here (a missing binary, a
	// kernel without the feature), without starting anything; nil when it
	// may. The boot probe then proves it with a real run.
	Available() error
	// Wrap returns the command that runs cmd under p.
	Wrap(cmd Cmd, p Policy) (Cmd, error)
	// Enforcement says how much of p this backend enforces here.
	Enforcement(p Policy) Enforcement
}

// ErrUnavailable means no backend works here and STEERABLE_SANDBOX_REQUIRE=1
// forbids running unconfined. Tools report it as the terminal error
// "sandbox_unavailable".
var ErrUnavailable = errors.New("sandbox_unavailable")

// Self says how to re-execute the running binary: its absolute Path and
// the argv[0] under which it runs the hidden HelperCommand (a test binary
// dispatches on argv[0]).
type Self struct {
	Path  string
	Argv0 string
}

// HelperCommand is the hidden subcommand through which the binary
// re-executes itself to confine itself and then exec the target (the
// Landlock backend). It is not listed in --help.
const HelperCommand = "__sandbox-exec"

// nullDevices are the device files every child may write (SPEC §4.2:
// "/dev/null-style devices").
var nullDevices = []string{"/dev/null", "/dev/zero", "/dev/full"}
