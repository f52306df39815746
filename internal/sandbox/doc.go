// Package sandbox runs the child processes of the tools that execute
// model-written commands (bash now, run_code's interpreter later) under an
// OS-level policy — the "layer-2" sandbox of SPEC §4.2 — and manages their
// lifetime.
//
// # Threat model
//
// The model is not trusted: a command it writes may try to damage or leak
// the user's files, exfiltrate the keys the sidecar holds, reach the
// network, or linger after the call. The sidecar and the host are trusted.
// The policy a child runs under is:
//
//   - read anywhere (the model must see the system to work in it);
//   - write only below the writable roots — the workspace and the
//     per-session temp dir — and to /dev/null, /dev/zero, /dev/full;
//   - no network unless STEERABLE_SANDBOX_NETWORK=1;
//   - an environment without credentials (EnvScrubbed: *_API_KEY, *_TOKEN,
//     *_SECRET and kin), or only an allowlist (EnvAllowlist, for run_code);
//   - its own session and process group, killed as a whole on timeout,
//     cancel, shutdown and signals, and after the command returns.
//
// Out of scope: reading secrets from files the user can read (the policy
// reads anywhere), kernel exploits, and UNIX-domain sockets reachable
// through the filesystem (a Docker or D-Bus socket): connecting to one is
// neither a file write nor IP networking, and only Landlock ABI 9 handles
// it.
//
// # Backends and what each guarantees
//
// A Backend rewrites a Cmd into one that applies the policy before the
// target runs; Probe proves it with a real confined run at boot; Open picks
// the first that passes (auto: bwrap, then landlock on Linux; seatbelt on
// macOS). Info.Enforcement is honest about what the running system
// enforces:
//
//   - bwrap (bubblewrap): read-only bind of /, the roots bound read-write, a
//     private tmpfs /tmp, minimal /dev, fresh /proc, PID and IPC namespaces,
//     an empty network namespace when the network is off, every capability
//     dropped. Full. With --die-with-parent and the PID namespace, the whole
//     tree dies with the bwrap process.
//   - landlock: the binary re-executes itself (HelperCommand), applies a
//     strict Landlock ruleset for the ABI the kernel reports (no silent
//     best-effort downgrade), and with the network off a seccomp filter that
//     refuses every non-AF_UNIX socket and io_uring (Landlock handles TCP
//     from ABI 4 and UDP only from ABI 10, raw sockets never); it empties
//     the capability bounding set, then execs the target. Landlock also
//     confines signals and abstract UNIX sockets to the sandbox (ABI 6).
//     Enforcement is always reported partial: Landlock has no right for
//     metadata, so chmod, chown, utimes and xattrs on files outside the
//     roots that the user owns still succeed (for a root sidecar, every
//     root-owned file), and "write only the roots" does not fully hold.
//     bwrap's read-only mount stops those, which is one reason auto prefers
//     it.
//   - seatbelt: macOS sandbox-exec with a generated profile that allows by
//     default and denies file writes outside the roots and, with the
//     network off, all network operations. Full for the policy.
//   - none: no confinement; enforcement none, network reported on.
//
// # Process lifetime
//
// Every child starts as the leader of a new session (so its own process
// group, and no controlling terminal) with PR_SET_PDEATHSIG=SIGKILL on
// Linux. Run kills the group when the command ends, times out or is
// cancelled (SIGTERM, a grace period, SIGKILL), so background jobs do not
// outlive the call. If the sidecar itself is SIGKILLed, nothing in the
// sidecar runs: the kernel kills the direct child (PR_SET_PDEATHSIG; the
// Landlock helper execs the target in place, so that is the command's
// shell), and under bwrap the whole tree (the PID namespace dies with its
// init; bwrap arms --die-with-parent a moment after it starts, so a sidecar
// killed in that window can leave the call's namespace running). Under
// landlock and none, grandchildren of a SIGKILLed sidecar — a
// background job of the shell — keep running until they end; a process that
// calls setsid leaves the group, so only bwrap reaches it.
package sandbox
