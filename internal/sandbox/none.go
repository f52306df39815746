package sandbox

// None runs the child with the sidecar's own rights: the explicit
// STEERABLE_SANDBOX=none, and the fallback when no backend works and the
// sandbox is not required. Process-group handling, PR_SET_PDEATHSIG, the
// scrubbed environment and the session TMPDIR still apply.
type None struct{}

// Name implements Backend.
func (None) Name() string { return "none" }

// Available implements Backend.
func (None) Available() error { return nil }

// Wrap implements Backend: the command is unchanged.
func (None) Wrap(cmd Cmd, _ Policy) (Cmd, error) { return cmd, nil }

// Enforcement implements Backend.
func (None) Enforcement(Policy) Enforcement { return EnforcementNone }

var _ Backend = None{}
