package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// Seatbelt confines the child with macOS sandbox-exec and a generated
// profile (SBPL). The profile allows by default and then denies what the
// policy forbids — reading the denied paths, every file write outside the
// writable roots and the null devices, signals to processes outside the
// sandbox, and, with the network off, every network operation (UNIX
// sockets included unless allowed) — because SBPL gives later rules
// precedence; the writable roots are allowed again after the denials of
// paths outside them (a root inside a denied directory stays reachable),
// and the denied paths inside a root are denied after that. A wildcard
// entry is expanded to its matches when the profile is built.
// Allow-by-default keeps Mach services, sysctl reads and
// the rest that ordinary tools need; those are not part of the policy.
// Paths reach the profile as -D parameters, never spliced into its text,
// so no path can change the profile.
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

// Prepare implements Backend.
func (s Seatbelt) Prepare(cmd launch.Exec, p Policy) (launch.Spec, error) {
	if err := s.Available(); err != nil {
		return launch.Spec{}, err
	}
	p = p.normalized()
	p.DenyRead = expandPatterns(p.DenyRead)
	args := []string{"sandbox-exec", "-p", SeatbeltProfile(p)}
	for i, r := range p.WritableRoots {
		args = append(args, "-D", fmt.Sprintf("%s=%s", seatbeltParam("WRITABLE_ROOT", i), r))
	}
	for i, d := range p.DenyRead {
		args = append(args, "-D", fmt.Sprintf("%s=%s", seatbeltParam("DENY_READ", i), d))
	}
	args = append(args, "--", cmd.Path)
	args = append(args, cmd.Args[1:]...)
	return launch.Spec{Exec: launch.Exec{Path: s.Path, Args: args, Dir: cmd.Dir, Env: cmd.Env, ExtraFiles: cmd.ExtraFiles}}, nil
}

// Enforcement implements Backend: the profile covers reads, writes,
// signals and network.
func (Seatbelt) Enforcement(Policy) Enforcement { return EnforcementFull }

func seatbeltParam(kind string, i int) string { return fmt.Sprintf("%s_%d", kind, i) }

// SeatbeltProfile is the SBPL profile for p; the roots are referenced as
// parameters WRITABLE_ROOT_0…, the denied paths as DENY_READ_0…, in p's
// (normalized) order. The last matching rule wins: the denials of paths
// outside the roots come before the roots' allowance (a root inside a
// denied directory stays reachable), those of paths inside a root after
// it, reading and writing both.
func SeatbeltProfile(p Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n")
	seatbeltDenials(&b, "(deny file-read*", p, false)
	b.WriteString("(deny file-write*)\n(allow file-read* file-write*")
	for i := range p.WritableRoots {
		fmt.Fprintf(&b, "\n    (subpath (param %q))", seatbeltParam("WRITABLE_ROOT", i))
	}
	b.WriteString(")\n")
	seatbeltDenials(&b, "(deny file-read* file-write*", p, true)
	b.WriteString("(allow file-write*")
	for _, d := range writableDevices {
		fmt.Fprintf(&b, "\n    (literal %q)", d)
	}
	b.WriteString(")\n(deny signal)\n(allow signal (target same-sandbox))\n")
	if !p.Network {
		b.WriteString("(deny network*)\n")
		if p.UnixSockets {
			b.WriteString("(allow network* (remote unix-socket))\n")
		}
	}
	return b.String()
}

var _ Backend = Seatbelt{}

// seatbeltDenials writes one rule denying the paths of p.DenyRead inside
// a writable root (inRoot) or outside every root.
func seatbeltDenials(b *strings.Builder, rule string, p Policy, inRoot bool) {
	n := 0
	for i, d := range p.DenyRead {
		if (innermostRoot(p.WritableRoots, d) != "") != inRoot {
			continue
		}
		if n++; n == 1 {
			b.WriteString(rule)
		}
		fmt.Fprintf(b, "\n    (subpath (param %q))", seatbeltParam("DENY_READ", i))
	}
	if n > 0 {
		b.WriteString(")\n")
	}
}
