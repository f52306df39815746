package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Mode is how the launcher isolates and sets up a child on Linux.
type Mode struct {
	// PIDNS: the child is the init of a fresh PID namespace.
	PIDNS bool
	// UserNS: the namespace is created inside a fresh user namespace (the
	// sidecar is not root, so it has no CAP_SYS_ADMIN of its own); the
	// child keeps its uid and gid through a one-line mapping.
	UserNS bool
	// stop: the child stops at its execve (PTRACE_TRACEME) until the
	// launcher has joined it to its cgroups, set its rlimits and, with
	// UserNS, written its id mappings — so the command never runs a single
	// instruction outside its limits — then detaches.
	Stop bool
	// Subreaper: the sidecar is a child subreaper and kills the escapees
	// of a child when it ends (only without PIDNS).
	Subreaper bool
}

// procSys is what a child's tree is on Linux: its process group, and the
// PID namespace it is the init of (init) or, in the subreaper fallback,
// the EscapeeMarker value its escapees carry.
type procSys struct {
	init   bool
	marker string
}

func (s procSys) nsInit() bool { return s.init }

// candidateModes are the modes tried at Open, strongest first. A root
// sidecar creates PID namespaces with its own CAP_SYS_ADMIN; where that is
// taken away (a container), a user namespace may still be allowed.
func candidateModes() []Mode {
	if os.Geteuid() != 0 {
		return []Mode{
			{PIDNS: true, UserNS: true, Stop: true},
			{PIDNS: true, UserNS: true},
			{Stop: true, Subreaper: true},
			{Subreaper: true},
		}
	}
	return []Mode{
		{PIDNS: true, Stop: true},
		{PIDNS: true, UserNS: true, Stop: true},
		{PIDNS: true},
		{Stop: true, Subreaper: true},
		{Subreaper: true},
	}
}

func (m Mode) lifetime(cg *cgroups) Lifetime {
	switch {
	case m.PIDNS:
		return LifetimePIDNamespace
	case cg != nil:
		return LifetimeCgroup
	case m.Subreaper:
		return LifetimeSubreaper
	}
	return LifetimeGroup
}

func (m Mode) String() string {
	var parts []string
	if m.PIDNS {
		parts = append(parts, "pid namespace")
	}
	if m.UserNS {
		parts = append(parts, "user namespace")
	}
	if m.Stop {
		parts = append(parts, "set up at exec")
	}
	if m.Subreaper {
		parts = append(parts, "subreaper")
	}
	return strings.Join(parts, ", ")
}

// sysProcAttr starts the child as the leader of a new session — so of its
// own process group, which is what the sidecar signals, and with no
// controlling terminal unless the caller gave it one — with the
// parent-death signal, in the mode's namespaces. confined: the starting
// thread is confined (Landlock's thread mode), so it cannot write the
// child's id mappings in /proc; only the stop mode can then use a user
// namespace (the mappings are written by another thread).
func (m Mode) sysProcAttr(tty, confined bool) (*syscall.SysProcAttr, error) {
	a := &syscall.SysProcAttr{Setsid: true, Setctty: tty, Ctty: 0, Pdeathsig: syscall.SIGKILL, Ptrace: m.Stop}
	if m.PIDNS {
		a.Cloneflags = syscall.CLONE_NEWPID
	}
	if m.UserNS {
		if confined && !m.Stop {
			return nil, errors.New("a confined thread cannot map a user namespace without the stop at exec")
		}
		a.Cloneflags |= syscall.CLONE_NEWUSER
		if !m.Stop {
			a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
			a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		}
	}
	return a, nil
}

// Start starts la with the caller's io under lim. The child is started
// from an OS thread that stays alive at least until the child has been
// reaped: PR_SET_PDEATHSIG fires when the thread that forked the child
// exits, not the process, and Go retires a locked thread when its
// goroutine returns. An unconfined launch takes a thread of the spawner,
// which never exits while the session is open; a confined one
// (Spec.Confine, Landlock's thread mode) gets a thread of its own,
// which carries the confinement and so is never unlocked: it waits until
// the child is reaped and dies with its goroutine (hold).
func (l *Launcher) Start(la Spec, io IO, lim Limits) (*Process, error) {
	cmd := la.command(io)
	attr, err := l.mode.sysProcAttr(io.TTY != nil, la.Confine != nil)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = attr
	call := l.nextCall()
	cg, err := l.cgroups.forCall(call, lim)
	if err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{}), sys: procSys{init: l.mode.PIDNS}}
	if l.mode.Subreaper {
		p.sys.marker = l.owner + "." + strconv.FormatUint(call, 10)
		cmd.Env = append(slices.Clip(cmd.Env), EscapeeMarker+"="+p.sys.marker)
	}
	started := make(chan error, 1)
	switch {
	case la.Confine != nil:
		onOwnThread(func() { l.hold(p, la.Confine, cg, lim, started) })
	case la.EmptyNet:
		if !l.net.threads.run(func(err error) { started <- l.spawnOn(err, p, cg, lim) }) {
			started <- errClosed
		}
	case !l.spawner.run(func(err error) { started <- l.spawnOn(err, p, cg, lim) }):
		onOwnThread(func() { l.hold(p, nil, cg, lim, started) })
	}
	err = <-started
	closeAll(la.Files)
	if err != nil {
		cg.remove()
		return nil, err
	}
	return p, nil
}

func (l *Launcher) nextCall() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastCall++
	return l.lastCall
}

// hold runs on a child's own OS thread (onOwnThread; a confined child's,
// or any child's once the spawner is closed): confine, start, set up,
// then wait until the child is reaped.
func (l *Launcher) hold(p *Process, confine func() error, cg *callCgroup, lim Limits, started chan<- error) {
	err := l.spawn(p, confine, cg, lim)
	started <- err
	if err == nil {
		<-p.done
	}
}

// spawnOn is spawn on a spawner thread, unless the thread could not be
// prepared (enterErr).
func (l *Launcher) spawnOn(enterErr error, p *Process, cg *callCgroup, lim Limits) error {
	if enterErr != nil {
		return enterErr
	}
	return l.spawn(p, nil, cg, lim)
}

// errClosed refuses a child after Close.
var errClosed = errors.New("the sandbox is closed")

// spawn runs on the locked thread that starts p: give it a fresh session
// keyring, confine it (if confine), start the child, set it up, and hand
// it to reap.
func (l *Launcher) spawn(p *Process, confine func() error, cg *callCgroup, lim Limits) error {
	if err := freshSessionKeyring(); err != nil {
		return err
	}
	if confine != nil {
		if err := confine(); err != nil {
			return fmt.Errorf("confining the command: %w", err)
		}
	}
	if err := p.cmd.Start(); err != nil {
		return err
	}
	pid := p.cmd.Process.Pid
	var err error
	if l.mode.Stop {
		err = l.setUpStopped(pid, cg, lim, confine != nil)
	} else {
		err = l.setUp(pid, cg, lim) // racing the child: the best this mode can do
	}
	if err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		p.cmd.Wait()
		return err
	}
	l.track(p)
	go l.reap(p, cg)
	return nil
}

// setUpStopped waits for the child's stop at execve, sets it up — from
// another thread when this one is confined (Landlock would refuse the
// writes to /proc and the cgroups) — and detaches from it on this one
// (ptrace requests come from the tracing thread).
func (l *Launcher) setUpStopped(pid int, cg *callCgroup, lim Limits, confined bool) error {
	if err := waitExecStop(pid); err != nil {
		return err
	}
	var err error
	if confined {
		done := make(chan error, 1)
		go func() { done <- l.setUp(pid, cg, lim) }()
		err = <-done
	} else {
		err = l.setUp(pid, cg, lim)
	}
	if derr := unix.PtraceDetach(pid); derr != nil && err == nil {
		err = fmt.Errorf("detaching from the command: %w", derr)
	}
	return err
}

// waitExecStop waits for the SIGTRAP stop that PTRACE_TRACEME causes at
// execve, without consuming a report (WNOWAIT): if the child died first,
// exec's own Wait reaps it.
func waitExecStop(pid int) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WEXITED|unix.WNOWAIT|unix.WALL, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("waiting for the command to start: %w", err)
		}
		break
	}
	if code := siginfoCode(&info); code != cldTrapped {
		return errors.New("the command ended before it started")
	}
	return nil
}

// cldTrapped is si_code CLD_TRAPPED: a traced child stopped.
const cldTrapped = 4

func siginfoCode(info *unix.Siginfo) int32 { return info.Code }

// setUp applies what must hold before the command runs: the id mappings of
// its user namespace, its cgroups, and the rlimits that stand in for
// missing cgroup controllers.
func (l *Launcher) setUp(pid int, cg *callCgroup, lim Limits) error {
	if l.mode.UserNS && l.mode.Stop {
		if err := writeIDMaps(pid); err != nil {
			return fmt.Errorf("mapping the command's user namespace: %w", err)
		}
	}
	if err := cg.join(pid); err != nil {
		return fmt.Errorf("moving the command into its cgroup: %w", err)
	}
	return l.setRlimits(pid, cg, lim)
}

// writeIDMaps maps the child's uid and gid to the sidecar's own, one line
// each (what an unprivileged process may write for its own child; root's
// maps 0 to 0).
func writeIDMaps(pid int) error {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	for _, w := range []struct{ file, data string }{
		{"setgroups", "deny"},
		{"gid_map", fmt.Sprintf("%d %d 1\n", os.Getgid(), os.Getgid())},
		{"uid_map", fmt.Sprintf("%d %d 1\n", os.Getuid(), os.Getuid())},
	} {
		if err := os.WriteFile(dir+w.file, []byte(w.data), 0); err != nil {
			return err
		}
	}
	return nil
}

// setRlimits sets the limits no cgroup controller enforces: RLIMIT_NPROC
// counts the uid's processes in the child's own user namespace (so only
// the call's), and RLIMIT_AS is the memory fallback of last resort.
func (l *Launcher) setRlimits(pid int, cg *callCgroup, lim Limits) error {
	fb := l.rlimitFallbacks(lim)
	if fb.procs && !cg.has(CtlPids) {
		n := uint64(lim.MaxProcs)
		if err := unix.Prlimit(pid, unix.RLIMIT_NPROC, &unix.Rlimit{Cur: n, Max: n}, nil); err != nil {
			return fmt.Errorf("RLIMIT_NPROC: %w", err)
		}
	}
	if fb.memory && !cg.has(CtlMemory) {
		n := uint64(lim.MaxMemoryBytes)
		if err := unix.Prlimit(pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: n, Max: n}, nil); err != nil {
			return fmt.Errorf("RLIMIT_AS: %w", err)
		}
	}
	return nil
}

// reap waits for the leader, kills what it left behind (a cgroup's
// processes, a subreaper's escapees; a PID namespace needs nothing), and
// records how it ended.
func (l *Launcher) reap(p *Process, cg *callCgroup) {
	p.err = p.cmd.Wait()
	p.exit = exitOf(p.cmd.ProcessState)
	p.exit.Limit = cg.limitHit()
	cg.killAll()
	cg.remove()
	if l.mode.Subreaper {
		killEscapees(func(m string) bool { return m == p.sys.marker }, l.liveSet())
	}
	l.forget(p)
	close(p.done)
}

func (l *Launcher) liveSet() map[int]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	pids := map[int]bool{}
	for p := range l.live {
		pids[p.Pid()] = true
	}
	return pids
}

// handlesSignal reports whether pid has a handler for sig (SigCgt in
// /proc/PID/status). Unknown counts as handled, so the caller waits.
func handlesSignal(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return true
	}
	_, rest, ok := bytes.Cut(b, []byte("\nSigCgt:\t"))
	if !ok {
		return true
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	mask, err := strconv.ParseUint(string(line), 16, 64)
	return err != nil || mask&(1<<(uint(sig)-1)) != 0
}

// probeMode proves that m works here by starting truePath (a trusted
// program: trusted.go) with it. Nothing confines this run.
func (l *Launcher) probeMode(m Mode, truePath string) error {
	saved := l.mode
	l.mode = m
	defer func() { l.mode = saved }()
	if m.Subreaper {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err)
		}
	}
	p, err := l.Start(Spec{Exec: Exec{Path: truePath, Args: []string{"true"}, Dir: "/"}}, IO{}, Limits{})
	if err != nil {
		return err
	}
	if exit, _ := p.Wait(); exit.Code != 0 {
		return fmt.Errorf("true exited %d", exit.Code)
	}
	return nil
}

// killOrphans kills every escapee of the session (Close).
func (l *Launcher) killOrphans() {
	if l.mode.Subreaper {
		killEscapees(func(m string) bool { return strings.HasPrefix(m, l.owner+".") }, l.liveSet())
	}
}

// startWatchdog starts nothing: the PID namespace ends a call's tree when the sidecar dies.
func (l *Launcher) startWatchdog() {}
