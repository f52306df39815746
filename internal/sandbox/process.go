package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Process is one started child: the leader of its own session and process
// group, and on Linux the init of its own PID namespace (see the package
// doc, "Process lifetime"). Signals go to the whole group; ending the
// leader ends the namespace, and with it every process the child started,
// however it detached.
type Process struct {
	cmd    *exec.Cmd
	done   chan struct{}
	nsInit bool   // the leader is the init of a PID namespace of its own
	marker string // escapeeMarker's value (the subreaper fallback)
	exit   Exit
	err    error
}

// Exit is how a child ended.
type Exit struct {
	Code   int    // the shell convention: 128+N when killed by signal N
	Signal string // the signal that ended the leader, if any
	// Limit names the per-call limit the child hit ("memory" or
	// "processes"), when the kernel reports one (cgroup events).
	Limit string
}

// waitDelay bounds how long Wait keeps copying output after the leader
// exits when a caller used non-file stdio and a straggler holds the pipe.
const waitDelay = time.Second

// Pid is the leader's process id (in the sidecar's PID namespace), which
// is also the group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the leader has exited, been reaped, and what it left
// behind has been killed.
func (p *Process) Done() <-chan struct{} { return p.done }

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
	if p.nsInit && !handlesSignal(p.Pid(), syscall.SIGTERM) {
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

// Wait waits for the child (and the cleanup after it) and returns how it
// ended; the error is exec's, e.g. a copy of caller-owned stdio that
// failed.
func (p *Process) Wait() (Exit, error) {
	<-p.done
	return p.exit, p.err
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
