package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Process is one started child: the leader of its own session and process
// group, SIGKILLed by the kernel if the sidecar dies. Signals go to the whole
// group, so a shell's children and background jobs share its fate.
type Process struct {
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// waitDelay bounds how long Wait keeps copying output after the leader
// exits when a caller used non-file stdio and a straggler holds the pipe.
const waitDelay = time.Second

// Start starts cmd in its own process group with the parent-death signal.
// The caller owns cmd's stdio; the process must be ended with Kill or Stop,
// or by returning on its own.
func Start(cmd *exec.Cmd) (*Process, error) {
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Pid is the leader's process id, which is also the group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the leader has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Signal sends sig to every process of the group.
func (p *Process) Signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.Pid(), sig) // ESRCH: the group is already empty
}

// Kill SIGKILLs the whole group. It is safe to call after the leader exited:
// leftover background processes of the group die too.
func (p *Process) Kill() { p.Signal(syscall.SIGKILL) }

// Stop asks the group to end (SIGTERM), waits up to grace for the leader,
// then SIGKILLs the group, and waits for the leader to be reaped.
func (p *Process) Stop(grace time.Duration) {
	p.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
	p.Kill()
	<-p.done
}

// Wait waits for the leader and returns its state and exec's error.
func (p *Process) Wait() (*os.ProcessState, error) {
	<-p.done
	return p.cmd.ProcessState, p.waitErr
}
