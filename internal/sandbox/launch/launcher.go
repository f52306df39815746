package launch

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
)

// IO is the caller-owned side of a child: its stdio, the descriptors
// it gets from fd 3 on, and its controlling terminal.
type IO struct {
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

// EscapeeMarker is the variable that names a child's call in its
// environment (the subreaper fallback, escapees_linux.go); a child never
// inherits the sidecar's own.
const EscapeeMarker = "STEERABLE_SANDBOX_CALL"

// Exec is a program to start: an absolute Path, its argv (Args[0] is the
// program name the child sees), working directory and environment — what a
// sandbox backend rewrites and the Launcher executes. ExtraFiles is how many
// descriptors the caller passes from fd 3 on, so a backend places its own
// after them. SharedNet says that the launcher can start the child in the
// session's empty network namespace (netns_linux.go).
type Exec struct {
	Path       string
	Args       []string
	Dir        string
	Env        []string
	ExtraFiles int
	SharedNet  bool
}

// Spec is a prepared child, what a backend's Prepare returns: what to
// execute, the descriptors the backend adds after the caller's (the
// launcher closes them once the child has started), and what to apply to
// the OS thread that starts the child (the thread-scoped Landlock mode:
// the child inherits it, the sidecar's other threads stay unrestricted).
// EmptyNet: the child must start in the session's empty network namespace,
// which stands in for one of its own.
type Spec struct {
	Exec
	Files    []*os.File
	Confine  func() error
	EmptyNet bool
}

// Limits bound one child and everything it starts (SPEC §4.2 "per-call
// limits"); zero means no limit.
type Limits struct {
	MaxProcs       int   // processes and threads alive at once
	MaxMemoryBytes int64 // resident memory of the whole tree
}

// Launcher starts every child of a session the same way (see the package
// doc) and keeps the live ones, so Close can end them.
type Launcher struct {
	mode     Mode
	cgroups  *cgroups  // nil: no cgroup could be created here
	owner    string    // the session's owner tag (stale-resource cleanup)
	watchdog *watchdog // kills the children if the sidecar dies (watchdog.go); nil where the kernel does
	spawner  spawner   // the threads that start unconfined children (spawner_linux.go)
	net      sharedNet // the session's empty network namespace and its threads (netns_linux.go)
	mu       sync.Mutex
	live     map[*Process]struct{}
	lastCall uint64
}

// New is a session's launcher, in the platform's weakest mode and without
// cgroups until Open.
func New() *Launcher { return &Launcher{owner: ownerTag()} }

// Mode is how children are started.
func (l *Launcher) Mode() Mode { return l.mode }

// Lifetime is the guarantee that ends a child's whole tree here.
func (l *Launcher) Lifetime() Lifetime { return l.mode.lifetime(l.cgroups) }

// useCgroups gives the children per-call cgroups where a hierarchy is
// writable (cgroup_linux.go); the error says why there are none.
func (l *Launcher) useCgroups() error {
	cg, err := openCgroups(l.owner)
	l.cgroups = cg
	return err
}

// HasCgroup reports whether the children's cgroups enforce c's limits.
func (l *Launcher) HasCgroup(c Controller) bool { return l.cgroups.has(c) }

// Cgroups reports whether the children get cgroups at all.
func (l *Launcher) Cgroups() bool { return l.cgroups != nil }

// CgroupNote says where the session's cgroups are when that is not simply
// below the sidecar's own, or why a controller is missing ("" if neither).
func (l *Launcher) CgroupNote() string { return l.cgroups.note() }

// Close kills every child still running (and, with the subreaper
// fallback, their escapees), then retires the launch threads, the
// session's network namespace, the watchdog and the cgroups.
func (l *Launcher) Close() {
	l.killAll()
	l.killOrphans()
	l.spawner.close()
	l.closeSharedNet()
	l.watchdog.close()
	l.cgroups.close()
}

// command is the exec.Cmd of a spec with the caller's stdio; the
// backend's descriptors follow the caller's.
func (la Spec) command(io IO) *exec.Cmd {
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

func (l *Launcher) track(p *Process) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.live == nil {
		l.live = map[*Process]struct{}{}
	}
	l.live[p] = struct{}{}
}

func (l *Launcher) forget(p *Process) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.live, p)
}

// killAll kills every live child and waits for each to be reaped.
func (l *Launcher) killAll() {
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
