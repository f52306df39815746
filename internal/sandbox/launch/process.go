package launch

import (
	"os/exec"
	"time"
)

// Process is one started child: the leader of its own session and process
// group, and on Linux the init of its own PID namespace (see the package
// doc, "Process lifetime"). Signals go to the whole group; ending the
// leader ends the namespace, and with it every process the child started,
// however it detached.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{}
	exit Exit
	err  error
	sys  procSys // the platform's handle on the whole tree (a Job Object on Windows, the PID namespace on Linux)
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

// Wait waits for the child (and the cleanup after it) and returns how it
// ended; the error is exec's, e.g. a copy of caller-owned stdio that
// failed.
func (p *Process) Wait() (Exit, error) {
	<-p.done
	return p.exit, p.err
}
