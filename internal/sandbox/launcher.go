package sandbox

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
)

// childIO is the caller-owned side of a child: its stdio, the descriptors
// it gets from fd 3 on, and its controlling terminal.
type childIO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	ExtraFiles     []*os.File
	TTY            *os.File
}

// Lifetime names the kernel mechanism that ends a child's whole tree
// (checks.sandbox reports it).
type Lifetime string

// The lifetime guarantees, strongest first.
const (
	// LifetimePIDNamespace: every child is the init of a PID namespace of
	// its own; when it ends — it returns, is killed, or the sidecar dies
	// (parent-death signal) — the kernel kills every process in it.
	LifetimePIDNamespace Lifetime = "pid namespace"
	// LifetimeCgroup: every child runs in a cgroup of its own, whose
	// processes are killed when the child ends. A SIGKILLed sidecar leaves
	// them to the next start, which kills the stale cgroups' processes.
	LifetimeCgroup Lifetime = "cgroup"
	// LifetimeSubreaper: the sidecar is a child subreaper; processes that
	// leave the child's group reparent to it and are killed when the child
	// ends. A SIGKILLed sidecar leaves them running.
	LifetimeSubreaper Lifetime = "subreaper"
	// LifetimeJob: every child runs in a Windows Job Object of its own
	// with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE; every process in it is
	// killed when the child ends, and by Windows when the sidecar dies
	// (its handle on the job closes).
	LifetimeJob Lifetime = "job object"
	// LifetimeGroup: only the child's process group is killed (no
	// namespace, cgroup or subreaper here; macOS).
	LifetimeGroup Lifetime = "process group"
)

// escapeeMarker is the variable that names a child's call in its
// environment (the subreaper fallback, escapees_linux.go); a child never
// inherits the sidecar's own.
const escapeeMarker = "STEERABLE_SANDBOX_CALL"

// launcher starts every child of a Sandbox the same way (see the package
// doc, "Process lifetime") and keeps the live ones, so Close can end them.
type launcher struct {
	mode     launchMode
	cgroups  *cgroups  // nil: no cgroup could be created here
	owner    string    // the session's owner tag (stale-resource cleanup)
	watchdog *watchdog // kills the children if the sidecar dies (watchdog.go); nil where the kernel does
	spawner  spawner   // the threads that start unconfined children (spawner_linux.go)
	emptyNet *os.File  // the session's empty network namespace (netns_linux.go); nil: none
	netOff   spawner   // the threads inside it
	mu       sync.Mutex
	live     map[*Process]struct{}
	lastCall uint64
}

// command is the exec.Cmd of a launch with the caller's stdio; the
// backend's descriptors follow the caller's.
func (la Launch) command(io childIO) *exec.Cmd {
	cmd := &exec.Cmd{Path: la.Path, Args: la.Args, Dir: la.Dir, Env: la.Env,
		Stdin: io.Stdin, Stdout: io.Stdout, Stderr: io.Stderr, WaitDelay: waitDelay,
		ExtraFiles: append(slices.Clip(io.ExtraFiles), la.Files...)}
	if io.TTY != nil {
		if cmd.Stdin == nil {
			cmd.Stdin = io.TTY
		}
		if cmd.Stdout == nil {
			cmd.Stdout = io.TTY
		}
		if cmd.Stderr == nil {
			cmd.Stderr = io.TTY
		}
	}
	return cmd
}

func (l *launcher) track(p *Process) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.live == nil {
		l.live = map[*Process]struct{}{}
	}
	l.live[p] = struct{}{}
}

func (l *launcher) forget(p *Process) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.live, p)
}

// killAll kills every live child and waits for each to be reaped.
func (l *launcher) killAll() {
	l.mu.Lock()
	live := make([]*Process, 0, len(l.live))
	for p := range l.live {
		live = append(live, p)
	}
	l.mu.Unlock()
	for _, p := range live {
		p.Kill()
		<-p.done
	}
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
