package sandbox

import "steerable.dev/sidecar/internal/sandbox/launch"

// None runs the child with the sidecar's own rights: the explicit
// STEERABLE_SANDBOX=none, and under auto the fallback when no backend works
// and the sandbox is not required. The launcher's lifetime guarantee and
// limits, the scrubbed environment and the session TMPDIR still apply.
type None struct{}

// Name implements Backend.
func (None) Name() string { return "none" }

// Available implements Backend.
func (None) Available() error { return nil }

// Prepare implements Backend: the command is unchanged.
func (None) Prepare(cmd launch.Exec, _ Policy) (launch.Spec, error) {
	return launch.Spec{Exec: cmd}, nil
}

// Enforcement implements Backend.
func (None) Enforcement(Policy) Enforcement { return EnforcementNone }

var _ Backend = None{}
