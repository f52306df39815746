//go:build !darwin

package sandbox

// NewSeatbelt returns the backend without sandbox-exec: it is never
// available off macOS, but its profile generator is tested everywhere.
func NewSeatbelt() Seatbelt { return Seatbelt{} }
