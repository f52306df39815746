//go:build !linux && !windows

package launch

import (
	"errors"
	"os"
	"syscall"
)

// On macOS (and the BSDs) there are no PID namespaces, parent-death
// signals, cgroups or subreapers: a child is the leader of its own session,
// and its process group is killed when the call ends, times out or is
// cancelled, and at shutdown, EOF and SIGTERM (Sandbox.Close). A process
// that leaves the group (setsid) survives the call, and a SIGKILLed
// sidecar leaves its children running (LifetimeGroup; the README says so)
// unless the watchdog (watchdog.go) is up, which then kills their groups.

// Mode is how children start here: one way, leaders of their own process
// group.
type Mode struct{}

// procSys is empty: a child's process group is the handle on its tree.
type procSys struct{}

// nsInit is false: no PID namespace holds a child here.
func (procSys) nsInit() bool { return false }

// candidateModes is the one mode there is.
func candidateModes() []Mode { return []Mode{{}} }

func (Mode) lifetime(*cgroups) Lifetime { return LifetimeGroup }

func (Mode) String() string { return "process group" }

// Start starts la with the caller's io, leading a session of its own
// (no limits here).
func (l *Launcher) Start(la Spec, io IO, _ Limits) (*Process, error) {
	cmd := la.command(io)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: io.TTY != nil}
	if la.Confine != nil {
		return nil, errors.New("thread confinement exists only on Linux")
	}
	err := cmd.Start()
	closeAll(la.Files)
	if err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	l.track(p)
	l.watchdog.add(p.Pid())
	go func() {
		p.err = cmd.Wait()
		p.exit = exitOf(cmd.ProcessState)
		l.watchdog.remove(p.Pid())
		l.forget(p)
		close(p.done)
	}()
	return p, nil
}

// startWatchdog starts the watchdog from the running binary, at boot.
func (l *Launcher) startWatchdog() {
	if exe, err := os.Executable(); err == nil {
		l.watchdog = startWatchdog(exe)
	}
}

func (l *Launcher) probeMode(Mode, string) error { return nil }

func (l *Launcher) killOrphans() {}

func handlesSignal(int, syscall.Signal) bool { return true }
