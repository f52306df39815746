// Package shellsession keeps the interactive shells of bash_session and
// write_stdin: long-lived bash processes on pseudo-terminals, under the
// same layer-2 sandbox as bash, that a model types into and reads from
// over many calls — a dev server started and its log read later, a REPL
// answered line by line, `cd` and `export` that persist, a runaway
// command stopped with Ctrl-C.
//
// # Lifetime
//
// A session is `bash --norc --noprofile -i` on a PTY (terminal_linux.go)
// started by sandbox.Start with the session's policy, the scrubbed
// environment, the per-call limits and the kill guarantee: the shell leads
// its own session with the PTY as its controlling terminal and runs in a
// PID namespace of its own, so everything it starts — background jobs,
// setsid daemons — dies with it. A minimal sh is the namespace's init and
// bash its child, because an init ignores signals it has no handler for
// (shell.go). A session ends when its shell exits, when it is closed
// (write_stdin close:true, session.close), when it goes Options.Idle
// without a call, and with the sidecar (Manager.Close at shutdown, EOF and
// SIGTERM; the kernel's parent-death signal when the sidecar is killed).
// The table holds at most Options.MaxSessions; an exited session stays
// until its final output is read.
//
// # Output
//
// The terminal is read continuously, whether or not a call is waiting, so
// a program that prints is never blocked by a model that does not poll.
// Raw bytes go to the live sink of the call in progress (tool.progress);
// the Stripper turns them into text — escape sequences and controls
// removed, CRs made into line ends — kept in a Ring of
// Options.BufferBytes. A read returns everything since the previous read:
// when the ring overwrote part of it, a note says how many bytes were
// dropped; beyond the call's character budget, Clip keeps head and tail
// and says how many characters it skipped. Nothing is lost silently.
//
// # When a read returns
//
// The shell's prompts are invisible markers (promptOSC), and the terminal's
// mode says whether a program reads it key by key (canonical mode off:
// readline at the prompt, a REPL, an editor). A call returns when the
// shell is back at its prompt after every line it was given, when output
// has gone quiet for a moment while a program waits for keys, when the
// shell exits, or after yieldMs; while a command runs in line mode, it
// waits for it (settle.go). So `make` is awaited to its end, a Python
// REPL answers in tens of milliseconds, and `sleep 100` returns after
// yieldMs with the session still running, ready for "\u0003".
package shellsession
