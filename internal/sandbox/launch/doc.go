// Package launch starts and ends the child processes of a sandbox
// session, whatever confines them: it owns what makes "nothing a command
// starts outlives its call" and the per-call limits true. Package sandbox,
// above it, decides what a child may do (the policy) and how that is
// enforced (a backend's Prepare turns an Exec into a Spec); the Launcher
// runs the Spec. Keeping the two apart keeps each small enough to read
// whole: a confinement changes without touching the thread, namespace and
// cgroup machinery, and that machinery is tested here without a backend.
// launch never imports sandbox.
//
// A session has one Launcher (New). sandbox sets it up at boot with Open —
// the watchdog, the cgroups, the strongest mode that starts a process
// here, the shared empty network namespace — then starts every child
// through Start (caller-owned stdio) or Run (captured output, a timeout),
// and ends them all with Close.
//
// # Process lifetime
//
// Every child is started by the launcher from a locked OS thread that
// lives at least as long as the child: PR_SET_PDEATHSIG fires when the
// thread that forked the child exits — not the process. An unconfined
// launch takes a thread of the launcher's pool (spawner_linux.go), locked
// for good and never retired while the session is open; a confined one
// gets a thread of its own, which carries Landlock's thread-scoped
// confinement, so it is never unlocked: it waits until the child is
// reaped and dies with its goroutine. The
// child leads a new session (its own process group) and, on Linux, is the
// init of a fresh PID namespace (inside a user namespace when the sidecar
// is not root), stopped at its execve (PTRACE_TRACEME) until its id
// mappings, cgroups and rlimits are in place. When the child ends —
// returns, times out, is cancelled, the sidecar shuts down (Launcher.Close), or the
// sidecar is SIGKILLed (the parent-death signal) — the kernel kills every
// process in the namespace, however it detached: one kernel guarantee per
// backend (bwrap runs inside it too, which closes bwrap's own start-up
// window). Where no namespace can be made, a per-call cgroup and then a
// child subreaper stand in (Launcher.Lifetime says which holds;
// checks.sandbox reports it). macOS kills only the process group (launcher_other.go),
// and a watchdog process started at boot kills the groups of the calls
// running when the sidecar is SIGKILLed (watchdog.go). On Windows each
// child starts suspended in a Job Object of its own with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and the limits, so the whole tree
// dies when the call ends and, by Windows, when the sidecar dies
// (launcher_windows.go).
//
// Being a namespace's init has one visible consequence, the same as PID 1
// in a container without an init: the command ignores signals it sends
// itself with the default action (kill $$). Stop accounts for the other
// side of it: a leader without a SIGTERM handler is killed at once.
//
// # Limits
//
// Each child gets a cgroup below a session directory (v2 where the memory
// and pids controllers can be had, v1 as root or where a v1 pair is the
// user's) with memory and pids limits; the kernel's counters say when one
// was hit (Exit.Limit, certain). An unprivileged sidecar finds them where
// systemd delegates a v2 subtree to its user: its own cgroup, which it
// splits by moving itself into a leaf, or beside its shared scope in the
// user manager's tree (cgroup_delegate_linux.go). Without a writable
// cgroup, RLIMIT_NPROC in the child's user namespace and RLIMIT_AS stand
// in (root is exempt from RLIMIT_NPROC, so a root sidecar without a pids
// cgroup has no process limit, and ProcsLimit says so; RLIMIT_AS breaks
// programs that reserve address space up front). The kernel counts no hit
// of an rlimit, so Run infers one (limithit.go): certain when a stopped
// tree held MaxProcs tasks, else possible, from what the failed command
// reported or the signal that ended it. ProcsLimit and MemoryLimit say
// what enforces each limit and what cannot be enforced. Session resources left by a
// SIGKILLed sidecar — its temp dir, its cgroups — carry its owner tag and
// are removed by the next start once their owner is provably gone.
//
// # Hidden subcommands
//
// The watchdog is the sidecar binary re-executed through WatchdogCommand;
// cmd dispatches it to WatchdogMain before anything else runs.
package launch
