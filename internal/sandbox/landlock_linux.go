package sandbox

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Landlock confines the child with the Landlock LSM. Landlock restricts the
// calling process and everything it starts, so the sidecar cannot apply it
// to a child from outside: the binary re-executes itself through
// HelperCommand, which restricts itself and then execs the target (see
// ExecMain). The target keeps the helper's PID, so PR_SET_PDEATHSIG and
// the process group set at start still hold.
type Landlock struct {
	Self Self
	// ABI is the running kernel's Landlock ABI version (0: none).
	ABI int
}

// NewLandlock asks the kernel for its Landlock ABI version.
func NewLandlock(self Self) Landlock {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		abi = 0
	}
	return Landlock{Self: self, ABI: abi}
}

// Name implements Backend.
func (Landlock) Name() string { return "landlock" }

// Available implements Backend.
func (l Landlock) Available() error {
	switch {
	case l.ABI < 1:
		return errors.New("the kernel has no Landlock (CONFIG_SECURITY_LANDLOCK, lsm=landlock at boot)")
	case l.Self.Path == "":
		return errors.New("the sidecar's own executable was not found, so it cannot re-execute itself")
	}
	return nil
}

// Wrap implements Backend: the helper gets the policy as flags and the
// target after "--".
func (l Landlock) Wrap(cmd Cmd, p Policy) (Cmd, error) {
	if err := l.Available(); err != nil {
		return Cmd{}, err
	}
	p = p.normalized()
	args := []string{l.Self.Argv0, HelperCommand, "--abi", strconv.Itoa(min(l.ABI, len(landlockPresets)-1))}
	for _, r := range p.WritableRoots {
		args = append(args, "--rw", r)
	}
	if p.Network {
		args = append(args, "--net")
	}
	args = append(args, "--", cmd.Path)
	args = append(args, cmd.Args...)
	return Cmd{Path: l.Self.Path, Args: args, Dir: cmd.Dir, Env: cmd.Env}, nil
}

// Enforcement implements Backend. Writes are fully confined from ABI 3 on
// (before it, truncate(2) was not a handled right). With the network off,
// Landlock itself only handles TCP bind/connect (ABI 4) and UDP (ABI 10),
// never raw sockets, so the helper also installs a seccomp filter that
// refuses every socket but AF_UNIX; the network rule is full only where that
// filter exists for the architecture.
func (l Landlock) Enforcement(p Policy) Enforcement {
	if l.ABI < 1 {
		return EnforcementNone
	}
	// Never full: Landlock has no right for metadata, so chmod, chown,
	// utimes and xattr changes outside the writable roots still succeed,
	// and the policy says "write only the roots".
	return EnforcementPartial
}

// landlockPresets are go-landlock's configurations by ABI version; the
// helper applies the one the sidecar measured, strictly (no best effort), so
// a rule the kernel cannot enforce is an error, never a silent downgrade.
var landlockPresets = []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4,
	landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// restrictLandlock applies the policy to the calling process: read and
// execute anywhere, write below the roots and to the null devices, no TCP
// unless network, no signals or abstract UNIX sockets out of the domain.
func restrictLandlock(abi int, p Policy) error {
	if abi < 1 || abi >= len(landlockPresets) {
		return fmt.Errorf("landlock ABI %d is not one this binary knows", abi)
	}
	cfg := landlockPresets[abi]
	if p.Network {
		cfg.HandledAccessNet = 0
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(nullDevices...).IgnoreIfMissing(),
	}
	if len(p.WritableRoots) > 0 {
		rw := landlock.RWDirs(p.WritableRoots...)
		if abi >= 2 {
			rw = rw.WithRefer() // mv between directories of the workspace
		}
		rules = append(rules, rw)
	}
	return cfg.Restrict(rules...)
}

var _ Backend = Landlock{}
