//go:build unix

package launch

import (
	"os"
	"syscall"
	"time"
)

// Signal sends sig to every process of the group. The leader of a PID
// namespace only receives the signals it handles (the kernel protects a
// namespace's init), SIGKILL aside.
func (p *Process) Signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.Pid(), sig) // ESRCH: the group is already empty
}

// Kill SIGKILLs the leader and its group: the PID namespace, and so every
// process in it, dies with the leader. It is safe to call after the leader
// exited.
func (p *Process) Kill() {
	p.Signal(syscall.SIGKILL)
	_ = p.cmd.Process.Signal(syscall.SIGKILL) // through its pidfd: never a recycled pid
}

// Stop asks the group to end (SIGTERM), waits up to grace for the leader,
// then SIGKILLs what is left, and waits for the leader to be reaped. A
// namespace leader that does not handle SIGTERM would ignore it (the
// kernel's init protection), so it is killed at once, as SIGTERM's default
// action would have done.
func (p *Process) Stop(grace time.Duration) {
	p.Signal(syscall.SIGTERM)
	if p.sys.nsInit() && !handlesSignal(p.Pid(), syscall.SIGTERM) {
		p.Kill()
		<-p.done
		return
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
	p.Kill()
	<-p.done
}

func exitOf(state *os.ProcessState) Exit {
	if state == nil {
		return Exit{Code: -1}
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: 128 + int(ws.Signal()), Signal: signalName(ws.Signal())}
	}
	return Exit{Code: state.ExitCode()}
}

// signalNames are the signals a command is commonly ended by, by name.
var signalNames = map[syscall.Signal]string{
	syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGPIPE: "SIGPIPE",
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGILL: "SIGILL",
	syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGXCPU: "SIGXCPU", syscall.SIGFPE: "SIGFPE",
}

func signalName(s syscall.Signal) string {
	if name, ok := signalNames[s]; ok {
		return name
	}
	return s.String()
}
