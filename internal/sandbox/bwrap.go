package sandbox

import (
	"errors"
	"os/exec"
)

// Bwrap confines the child with bubblewrap: a mount namespace whose root is
// the host's, read-only; the writable roots bound read-write at their own
// paths; a private tmpfs /tmp; a minimal /dev and a fresh /proc; its own PID
// and IPC namespaces, and its own (empty) network namespace when the policy
// has no network. Every capability is dropped, which matters when the
// sidecar runs as root (bubblewrap keeps them for root otherwise).
//
// --die-with-parent with the PID namespace gives the strongest lifetime
// guarantee of the Linux backends: when the bwrap process dies — killed with
// its group, or because the sidecar was SIGKILLed and PR_SET_PDEATHSIG fired —
// the namespace's init dies and the kernel kills every process in it, however
// it detached.
type Bwrap struct {
	// Path is the bwrap binary; empty when it is not installed.
	Path string
}

// NewBwrap finds bwrap on PATH.
func NewBwrap() Bwrap {
	p, _ := exec.LookPath("bwrap")
	return Bwrap{Path: p}
}

// Name implements Backend.
func (Bwrap) Name() string { return "bwrap" }

// Available implements Backend.
func (b Bwrap) Available() error {
	if b.Path == "" {
		return errors.New("bwrap is not installed (apt-get install bubblewrap)")
	}
	return nil
}

// Wrap implements Backend.
func (b Bwrap) Wrap(cmd Cmd, p Policy) (Cmd, error) {
	if err := b.Available(); err != nil {
		return Cmd{}, err
	}
	return Cmd{Path: b.Path, Args: b.args(cmd, p.normalized()), Dir: cmd.Dir, Env: cmd.Env}, nil
}

func (b Bwrap) args(cmd Cmd, p Policy) []string {
	args := []string{"bwrap",
		"--die-with-parent", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
	}
	if !p.Network {
		args = append(args, "--unshare-net")
	}
	for _, r := range p.WritableRoots {
		args = append(args, "--bind", r, r)
	}
	if cmd.Dir != "" {
		args = append(args, "--chdir", cmd.Dir)
	}
	args = append(args, "--", cmd.Path)
	return append(args, cmd.Args[1:]...)
}

// Enforcement implements Backend: the read-only root, the bind mounts and
// the empty network namespace cover the whole policy.
func (Bwrap) Enforcement(Policy) Enforcement { return EnforcementFull }

var _ Backend = Bwrap{}
