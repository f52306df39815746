package launch

import (
	"fmt"
	"os"
	"runtime"
)

// LifetimeText says which mechanism ends a call's whole tree here, and
// when (checks.sandbox).
func (l *Launcher) LifetimeText() string {
	lt := l.Lifetime()
	text := map[Lifetime]string{
		LifetimePIDNamespace: "pid namespace (every process of a call dies with it: return, timeout, cancel, shutdown, and a SIGKILL of the sidecar)",
		LifetimeCgroup:       "cgroup (every process of a call is killed when it ends; after a SIGKILL of the sidecar, at the next start)",
		LifetimeSubreaper:    "subreaper (processes that leave a call's group are killed when it ends; a SIGKILLed sidecar leaves them running)",
		LifetimeJob:          "job object (every process of a call dies with it: return, timeout, cancel, shutdown, and a kill of the sidecar)",
		LifetimeGroup:        "process group (only the call's group is killed; processes that call setsid survive it)",
	}[lt]
	if lt == LifetimeGroup && l.watchdog != nil {
		text += "; a watchdog process kills the groups of the running calls if the sidecar is SIGKILLed"
	}
	return text
}

// ProcsLimit says what enforces STEERABLE_SANDBOX_MAX_PROCS for lim here; ok
// is false when it is set and nothing does.
func (l *Launcher) ProcsLimit(lim Limits) (text string, ok bool) {
	cg := l.cgroups
	switch {
	case lim.MaxProcs == 0:
		return "processes not limited (STEERABLE_SANDBOX_MAX_PROCS=0)", true
	case cg.has(CtlPids):
		return fmt.Sprintf("%d processes (%s pids)", lim.MaxProcs, cg.name()), true
	case l.rlimitFallbacks(lim).procs:
		return fmt.Sprintf("%d processes (RLIMIT_NPROC in the call's user namespace)", lim.MaxProcs), true
	case runtime.GOOS == "windows":
		return fmt.Sprintf("%d processes (the call's job object)", lim.MaxProcs), true
	case runtime.GOOS != "linux":
		return "processes not limited (" + runtime.GOOS + " offers no per-call process limit here)", false
	case os.Geteuid() == 0:
		return "processes not limited (root is exempt from RLIMIT_NPROC and no pids cgroup is writable)", false
	}
	return "processes not limited (no pids cgroup and no user namespace; RLIMIT_NPROC would count every process of the user)", false
}

// MemoryLimit says what enforces STEERABLE_SANDBOX_MAX_MEMORY_MB here; ok
// is false when it is set and nothing does.
func (l *Launcher) MemoryLimit(lim Limits) (text string, ok bool) {
	cg := l.cgroups
	mb := lim.MaxMemoryBytes >> 20
	switch {
	case lim.MaxMemoryBytes == 0:
		return "memory not limited (STEERABLE_SANDBOX_MAX_MEMORY_MB=0)", true
	case cg.has(CtlMemory):
		return fmt.Sprintf("%d MB memory (%s memory)", mb, cg.name()), true
	case l.rlimitFallbacks(lim).memory:
		return fmt.Sprintf("%d MB address space (RLIMIT_AS, as no memory cgroup is writable: programs that reserve address space "+
			"up front, like Go, Node and the JVM, may fail)", mb), true
	case runtime.GOOS == "windows":
		return fmt.Sprintf("%d MB memory (the call's job object)", mb), true
	}
	return "memory not limited (" + runtime.GOOS + " offers no per-call memory limit here)", false
}
