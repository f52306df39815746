// Package sandbox runs the child processes of the tools that execute
// model-written code — bash, run_code's interpreter, plugin servers, an
// interactive shell — under an OS-level policy (the "layer-2" sandbox of
// SPEC §4.2), and guarantees that nothing they start outlives them.
//
// # Threat model
//
// The model is not trusted: a command it writes may try to damage or leak
// the user's files, print the user's keys into its own context, reach the
// network or a local daemon, signal other processes, exhaust the machine,
// or linger after the call. The sidecar and the host are trusted. The
// policy a child runs under (Policy) is:
//
//   - read anywhere except the credential stores (DefaultDenyRead: ~/.ssh,
//     ~/.aws, ~/.gnupg, cloud, cluster, registry and AI-assistant
//     credentials, browser profiles, keyrings and keychains, "~/" being
//     both $HOME and the passwd entry's home; for a root sidecar
//     /etc/shadow, TLS and SSH host keys, root's histories too; plus
//     STEERABLE_SANDBOX_DENY_READ, minus the entries inside
//     STEERABLE_SANDBOX_ALLOW_READ), wherever they lie: a credential store
//     inside the workspace or another writable root is denied all the same,
//     for reading and for writing. A writable root inside a denied path
//     stays reachable; the workspace never lies inside one (cmd refuses such
//     a workspace at boot; where only the resolved list shows it, every
//     child is refused). The file tools refuse the same list by lookups on
//     resolved paths (files.Deny, fed from DenyEntries);
//   - write only below the writable roots — the workspace and the
//     per-session temp dir — and to /dev/null, /dev/zero, /dev/full and
//     the child's own terminal;
//   - open no terminal but its own (Policy.Terminal, /dev/tty): not
//     another session's pts, the user's terminal emulator's, a console
//     (terminalDevices). bwrap's fresh /dev has none; Landlock's ruleset
//     denies /dev/pts, /dev/tty*, /dev/console and /dev/vcs* and grants
//     the child's own pts and /dev/tty by name. The price under Landlock:
//     a pty the command opens itself (/dev/ptmx: script, tmux, ssh -t)
//     has a follower it cannot open by name;
//   - with the network off (the default): no IP sockets, no new AF_UNIX
//     sockets (socketpair aside; STEERABLE_SANDBOX_UNIX_SOCKETS=1 allows
//     them), no io_uring;
//   - no signals to processes outside the sandbox;
//   - no kernel keyrings: every child starts in a fresh, empty session
//     keyring (keyrings_linux.go), and the seccomp filter refuses keyctl,
//     add_key and request_key (ENOSYS), so neither the sidecar's session
//     keyring nor the user's or persistent keyring is reachable;
//   - per-call limits on processes and memory (Limits);
//   - never uid 0 inside bwrap, and the kernel knobs a root sidecar's
//     command could write (/proc/sys, the sysrq trigger) read-only;
//   - an environment without credentials (EnvRules: every name with a
//     credential segment, a known list, and every value of a well-known
//     secret shape whatever its name — an issuer's token, a JWT, a PEM
//     private key, a bearer credential, a URL with userinfo:
//     secretshape.go), or only a core set, or run_code's allowlist.
//
// Out of scope: kernel exploits; files readable through a path the deny
// list does not name (a hard link, a bind mount); the command lines of
// other processes in the host's /proc under landlock and none.
//
// # Credential stores inside a writable root
//
// The commonest desktop set-up opens the user's home as the workspace, so
// ~/.ssh lies inside a writable root. bwrap masks it over the root's bind
// and binds every directory between the root and it over itself: a mount
// point cannot be renamed, so a command cannot carry the store out from
// under the mask to a name the next call would not deny (masks.go).
// Landlock cannot take a subtree out of a granted one — a rule on a
// directory grants its whole subtree — so such a root is granted entry by
// entry (landlockRules): each entry but the stores gets the root's rights,
// while the root and the directories between it and a store get none
// beyond listing. That is sound (the store is neither readable nor
// writable, and cannot be renamed away, since renaming needs a right on
// its parent), at a price no ruleset avoids: a command cannot create,
// rename or remove an entry directly in those directories (a new file at
// the top of a home workspace). The file tools can, and the ruleset is
// rebuilt when an enumerated directory changes, so what they create is
// covered from the next command on; checks.sandbox names the directories,
// and auto prefers bwrap, which has no such limit. The alternatives were
// worse: reporting enforcement "partial" would leave the keys readable,
// and refusing landlock for such a workspace would leave a machine without
// bwrap with no sandbox at all.
//
// # Backends and what each guarantees
//
// A Backend prepares a child (Prepare: a rewrite of the command plus, for
// Landlock, a confinement of the starting thread); Probe proves it with a
// real confined run at boot, which also reports from inside what was
// applied (no_new_privs, the seccomp mode, the uid); Open picks the first
// that passes (auto: bwrap, then landlock on Linux; seatbelt on macOS). A
// backend named in STEERABLE_SANDBOX that fails its probe refuses every
// child (ErrUnavailable) — it is never replaced by an unconfined run.
// Info.Enforcement is honest about what the running system enforces:
//
//   - bwrap (from /usr/bin, /bin, /usr/local/bin or STEERABLE_BWRAP_PATH,
//     never PATH): read-only bind of /, the roots bound read-write, the
//     denied paths masked (inside the roots too), a private tmpfs /tmp of
//     Limits.TmpBytes (bwrap's --size, 0.8.0 on: tmpsize.go), minimal
//     /dev, fresh /proc
//     with its knobs read-only, PID, IPC, UTS and (network off) empty
//     network namespaces, the seccomp filter through --seccomp, every
//     capability dropped, and as root an unprivileged uid in a user
//     namespace. Full. The masks are computed once per deny list and
//     reused while the directories that decide them are unchanged
//     (masks.go); a root sidecar's children that can create no socket
//     share one empty network namespace of the session (netns_linux.go).
//   - landlock: a strict Landlock ruleset for the kernel's ABI (no silent
//     best-effort downgrade): read on an allowlist that covers / minus the
//     denied paths (enumerated when the ruleset is built, rebuilt when an
//     enumerated directory changes; listing stays allowed everywhere),
//     write below the roots (entry by entry in a root that holds a denied
//     path), TCP (ABI 4), signals and abstract UNIX
//     sockets (ABI 6) scoped to the sandbox, plus the seccomp filter and an
//     empty capability bounding set. The thread mode applies all of it to
//     the one OS thread that starts the child; the re-exec mode (a fallback
//     chosen at probe time) to a helper started from the descriptor of the
//     running binary. Partial: Landlock has no right for metadata, so
//     chmod, chown, utimes and xattrs of files outside the roots that the
//     user owns still succeed.
//   - seatbelt: macOS sandbox-exec with a generated profile (allow by
//     default; deny reading the denied paths, writing outside the roots,
//     signals outside the sandbox and, with the network off, all network).
//     Full for the policy; built and unit-tested here, run on macOS.
//   - none: no confinement; enforcement none, network reported on. The
//     launcher's lifetime guarantee and limits, the scrubbed environment
//     and the session TMPDIR still apply. It is all Windows has: auto
//     selects it there, and STEERABLE_SANDBOX_REQUIRE=1 refuses every
//     child (shell.go finds the bash.exe of Git for Windows or MSYS2).
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
// returns, times out, is cancelled, the sidecar shuts down (Close), or the
// sidecar is SIGKILLed (the parent-death signal) — the kernel kills every
// process in the namespace, however it detached: one kernel guarantee per
// backend (bwrap runs inside it too, which closes bwrap's own start-up
// window). Where no namespace can be made, a per-call cgroup and then a
// child subreaper stand in (Lifetime says which holds; checks.sandbox
// reports it). macOS kills only the process group (launcher_other.go),
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
// cgroup has no process limit, and Unenforced says so; RLIMIT_AS breaks
// programs that reserve address space up front). The kernel counts no hit
// of an rlimit, so Run infers one (limithit.go): certain when a stopped
// tree held MaxProcs tasks, else possible, from what the failed command
// reported or the signal that ended it. Summary says what enforces each
// limit and what cannot be enforced. Session resources left by a
// SIGKILLed sidecar — its temp dir, its cgroups — carry its owner tag and
// are removed by the next start once their owner is provably gone.
//
// # What the selection reports beyond the policy
//
// A sidecar binary in a writable root (Options.Binaries: the running one,
// the path the host started) is a note of Summary and ExposedBinaries: a
// command could replace what the host starts next time (binaries.go).
//
// # Using it
//
// cmd opens one Sandbox per session (Open) and closes it at exit (Close,
// which kills every child still running). A tool runs a child with Run —
// captured, bounded output, a timeout, ctx cancellation — or starts a
// long-lived one with Start, owning its stdio. Both take a Command:
//
//	// bash: one command, output captured.
//	res, err := sb.Run(ctx, sandbox.Command{Argv: []string{"bash", "-c", cmd}, Dir: dir},
//		sandbox.RunOptions{Timeout: t, MaxOutput: max, OnOutput: live})
//
//	// run_code: python3 with its bridge on fds 3 and 4, a per-call temp
//	// dir writable, the network off, the allowlisted environment.
//	p := sb.Policy().WithWritable(callDir).WithNetwork(false)
//	proc, err := sb.Start(sandbox.Command{Argv: []string{"python3", "-c", runner}, Dir: ws,
//		Policy: &p, Env: sb.Env(sandbox.EnvAllowlist), ExtraFiles: []*os.File{req, resp},
//		Stdout: logs, Stderr: logs})
//
//	// a plugin: an MCP server over stdin/stdout with its own policy, alive
//	// until disabled (proc.Stop) or the sidecar exits.
//	p := sb.Policy().WithNetwork(spec.Network).WithWritable(spec.Writable...)
//	proc, err := sb.Start(sandbox.Command{Argv: spec.Argv, Dir: ws, Policy: &p,
//		Env: append(sb.Env(sandbox.EnvScrubbed), spec.Env...), Stdin: toServer, Stdout: fromServer})
//
//	// bash_session: an interactive shell on a PTY (github.com/creack/pty).
//	leader, follower, _ := pty.Open()
//	proc, err := sb.Start(sandbox.Command{Argv: []string{"bash", "-i"}, Dir: ws, TTY: follower})
//	follower.Close() // the child holds it; talk through leader
//
// Every child, whatever its shape, gets the same lifetime guarantee,
// limits and parent-death signal.
package sandbox
