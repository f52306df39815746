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
//     keyring (launch/keyrings_linux.go), and the seccomp filter refuses keyctl,
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
//     share one empty network namespace of the session (launch/netns_linux.go).
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
// # Where the seam is
//
// This package decides what a child may do: the policy, the backends that
// enforce it (bwrap, landlock, seatbelt, none; Windows has only none) and
// the boot probe that proves one here. Package launch, beneath it, starts
// and ends the child whatever confines it: the locked-thread launcher and
// its spawner pool, the PID namespace, cgroups and rlimits, the watchdog,
// the Windows job object, and waiting for, capturing and killing the tree.
// The two change for different reasons (a new confinement vs. a new kernel
// guarantee of lifetime), and each is tested on its own. The seam is one
// value: a backend's Prepare turns a launch.Exec into a launch.Spec (a
// rewritten command plus, for Landlock, what to apply to the starting
// thread), and the Launcher runs it. launch never imports this package;
// the tools import only this one, which names launch's Process, Exit,
// Result, RunOptions and Lifetime for them.
//
// Every child, confined or not, gets the launcher's lifetime guarantee
// (the child and everything it starts dies with its call, and with the
// sidecar) and per-call limits (memory, processes): see package launch.
// Lifetime and Summary say which guarantee and which limits hold here.
//
// # Programs the sidecar runs itself
//
// What the sidecar runs outside any sandbox — bwrap, the launcher's mode
// probe (true), the backend probe's shell, the bash tool's shell, an
// unconfined plugin's program named without a path — runs with its
// rights, as root in a container. PATH may name a directory the model
// writes (an activated .venv/bin of the workspace, ".", an empty entry),
// so each such name resolves only to a trusted program (trusted.go): a
// regular executable file outside every writable root, reached through a
// directory outside them, owned by root or the sidecar's user, neither it
// nor its directory group- or world-writable; a PATH entry that fails is
// skipped and named in Summary (UntrustedPrograms, for the boot log). The
// model's own commands resolve on PATH normally: they run confined.
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
