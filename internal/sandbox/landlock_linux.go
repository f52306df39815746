package sandbox

import (
	"errors"
	"fmt"
	"strconv"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// Landlock confines the child with the Landlock LSM, which restricts the
// calling thread and everything it starts. It has two modes, tried in this
// order at boot:
//
//   - thread (the default): the launcher's locked OS thread applies the
//     ruleset, no_new_privs, the seccomp filter and the empty capability
//     bounding set to itself only, then starts the command, which inherits
//     them. The sidecar's other threads stay unrestricted, and the thread
//     is discarded with the child. No second binary starts.
//   - re-exec: the binary re-executes itself through HelperCommand, which
//     restricts itself and then execs the target (ExecMain). It starts from
//     the descriptor of the running binary taken at boot (Self), never from
//     a path, so a command that replaces the binary on disk cannot unconfine
//     the next call. Used where the thread mode cannot work (a user
//     namespace that must be mapped without the stop at exec).
type Landlock struct {
	// ABI is the running kernel's Landlock ABI version (0: none).
	ABI  int
	Self Self
	exec bool
	sets *rulesetCache // shared by the copies of the backend
}

// NewLandlock asks the kernel for its Landlock ABI version; the backend
// starts in thread mode.
func NewLandlock(self Self) Landlock {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		abi = 0
	}
	return Landlock{ABI: abi, Self: self, sets: &rulesetCache{}}
}

// Name implements Backend.
func (Landlock) Name() string { return "landlock" }

// Modes implements moder: thread first, then the re-exec helper.
func (l Landlock) Modes() []Backend {
	thread, reexec := l, l
	thread.exec, reexec.exec = false, true
	return []Backend{thread, reexec}
}

// Mode implements moder.
func (l Landlock) Mode() string {
	if l.exec {
		return "re-exec helper"
	}
	return "thread-scoped"
}

// Available implements Backend.
func (l Landlock) Available() error {
	switch {
	case l.ABI < 1:
		return errors.New("the kernel has no Landlock (CONFIG_SECURITY_LANDLOCK, lsm=landlock at boot)")
	case l.exec && l.Self.File == nil:
		return errors.New("no descriptor of the sidecar's own executable, so it cannot re-execute itself")
	}
	return nil
}

// Prepare implements Backend.
func (l Landlock) Prepare(cmd launch.Exec, p Policy) (launch.Spec, error) {
	if err := l.Available(); err != nil {
		return launch.Spec{}, err
	}
	p = p.normalized()
	if !l.exec {
		return launch.Spec{Exec: cmd, Confine: func() error { return l.confineThread(p) }}, nil
	}
	args := []string{l.Self.Argv0, HelperCommand, "--abi", strconv.Itoa(min(l.ABI, len(landlockPresets)-1))}
	for _, r := range p.WritableRoots {
		args = append(args, "--rw", r)
	}
	for _, d := range p.DenyRead {
		args = append(args, "--deny", d)
	}
	if p.Terminal != "" {
		args = append(args, "--tty", p.Terminal)
	}
	if p.Network {
		args = append(args, "--net")
	}
	if p.UnixSockets {
		args = append(args, "--unix")
	}
	args = append(args, "--", cmd.Path)
	args = append(args, cmd.Args...)
	return launch.Spec{Exec: launch.Exec{Path: l.Self.path(), Args: args, Dir: cmd.Dir, Env: cmd.Env, ExtraFiles: cmd.ExtraFiles}}, nil
}

// confineThread applies the policy to the calling (locked) thread only:
// the empty capability bounding set, no_new_privs, the seccomp filter and
// the Landlock domain — each of these is per thread unless asked to
// synchronise, which this never does.
func (l Landlock) confineThread(p Policy) error {
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if seccompSupported {
		if err := installSeccomp(commandFilter(p), false); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
	}
	if err := l.sets.restrict(l.ABI, p); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// Enforcement implements Backend. Never full: Landlock has no right for
// metadata, so chmod, chown, utimes and xattr changes outside the
// writable roots still succeed, and the policy says "write only the
// roots". With the network off, Landlock itself only handles TCP (ABI 4)
// and UDP (ABI 10), never raw sockets, so a seccomp filter refuses every
// socket; that filter exists for amd64 and arm64.
func (l Landlock) Enforcement(Policy) Enforcement {
	if l.ABI < 1 {
		return EnforcementNone
	}
	return EnforcementPartial
}

// warm builds the ruleset of p ahead of the first call (the boot probe
// built its own: its deny list has the probe's secret).
func (l Landlock) warm(p Policy) {
	if l.exec || l.sets == nil {
		return
	}
	l.sets.mu.Lock()
	defer l.sets.mu.Unlock()
	l.sets.get(l.ABI, p.normalized())
}

// close releases the cached rulesets.
func (l Landlock) close() {
	if l.sets != nil {
		l.sets.close()
	}
}

var _ moder = Landlock{}
