//go:build !linux

package sandbox

import (
	"errors"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// Landlock is Linux-only; elsewhere it is never available.
type Landlock struct {
	Self Self
	ABI  int
}

// NewLandlock returns the unavailable backend.
func NewLandlock(self Self) Landlock { return Landlock{Self: self} }

// Name implements Backend.
func (Landlock) Name() string { return "landlock" }

// Available implements Backend.
func (Landlock) Available() error { return errors.New("Landlock exists only on Linux") }

// Prepare implements Backend.
func (l Landlock) Prepare(launch.Exec, Policy) (launch.Spec, error) {
	return launch.Spec{}, l.Available()
}

// Enforcement implements Backend.
func (Landlock) Enforcement(Policy) Enforcement { return EnforcementNone }

func (Landlock) close() {}

var _ Backend = Landlock{}
