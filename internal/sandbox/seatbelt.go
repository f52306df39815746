package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// Seatbelt confines the child with macOS sandbox-exec and a generated
// profile (SBPL). The profile allows by default and then denies what the
// policy forbids — every file write outside the writable roots and the null
// devices, and, with the network off, every network operation — because
// SBPL gives later rules precedence. Allow-by-default keeps Mach services,
// sysctl reads and the rest that ordinary tools need; those are not part of
// the policy. Paths reach the profile as -D parameters, never spliced into
// its text, so no path can change the profile.
type Seatbelt struct {
	// Path is sandbox-exec; empty where there is none (every OS but macOS).
	Path string
}

// Name implements Backend.
func (Seatbelt) Name() string { return "seatbelt" }

// Available implements Backend.
func (s Seatbelt) Available() error {
	if s.Path == "" {
		return errors.New("sandbox-exec exists only on macOS")
	}
	return nil
}

// Wrap implements Backend.
func (s Seatbelt) Wrap(cmd Cmd, p Policy) (Cmd, error) {
	if err := s.Available(); err != nil {
		return Cmd{}, err
	}
	p = p.normalized()
	args := []string{"sandbox-exec", "-p", SeatbeltProfile(p)}
	for i, r := range p.WritableRoots {
		args = append(args, "-D", fmt.Sprintf("%s=%s", seatbeltRootParam(i), r))
	}
	args = append(args, "--", cmd.Path)
	args = append(args, cmd.Args[1:]...)
	return Cmd{Path: s.Path, Args: args, Dir: cmd.Dir, Env: cmd.Env}, nil
}

// Enforcement implements Backend: the profile covers writes and network.
func (Seatbelt) Enforcement(Policy) Enforcement { return EnforcementFull }

func seatbeltRootParam(i int) string { return fmt.Sprintf("WRITABLE_ROOT_%d", i) }

// SeatbeltProfile is the SBPL profile for p; the roots are referenced as
// parameters WRITABLE_ROOT_0… in p's (normalized) order.
func SeatbeltProfile(p Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*")
	for i := range p.WritableRoots {
		fmt.Fprintf(&b, "\n    (subpath (param %q))", seatbeltRootParam(i))
	}
	for _, d := range nullDevices {
		fmt.Fprintf(&b, "\n    (literal %q)", d)
	}
	b.WriteString(")\n")
	if !p.Network {
		b.WriteString("(deny network*)\n")
	}
	return b.String()
}

var _ Backend = Seatbelt{}
