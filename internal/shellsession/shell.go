package shellsession

import (
	"slices"
	"strings"
)

// promptOSC is the private OSC number of the session's prompt markers: the
// shell's prompts are nothing but "ESC ] 6973;P BEL" (PS1) and
// "ESC ] 6973;C BEL" (PS2). The model never sees them (the Stripper
// removes every OSC); a host's terminal emulator ignores an OSC it does
// not know. They tell the session when the shell is back at its prompt —
// a command finished, however long it was quiet before — and when it
// waits for the rest of an incomplete command. A program that prints the
// same bytes only makes a read return early; nothing depends on them for
// safety.
const promptOSC = "6973"

// shellArgv runs the interactive shell as the child of a minimal init.
// The sandbox makes its command the init (PID 1) of a PID namespace of its
// own, and an init ignores every signal it has no handler for: a user's
// `exec sleep 100` then Ctrl-C, or `kill -9 $$`, would do nothing. With sh
// as the init and bash below it, the shell and what it runs get signals as
// in any terminal; sh waits, reaps, and exits with bash's status, and when
// it ends the namespace — the whole session tree — goes with it.
func shellArgv(sh, bash string) []string {
	return []string{sh, "-c", `"$@"; exit $?`, "sh", bash, "--norc", "--noprofile", "-i"}
}

// shellEnv is the shell's environment: base (the sandbox's scrubbed
// environment) with the terminal settings of a session.
func shellEnv(base []string) []string {
	set := []string{
		"TERM=dumb", // no colours or cursor addressing to strip, no full-screen redraws
		`PS1=\[\e]` + promptOSC + `;P\a\]`,
		`PS2=\[\e]` + promptOSC + `;C\a\]`,
		"PROMPT_COMMAND=", // the sidecar's own would run in the session
		"HISTFILE=",       // no history file: $HOME may be read-only in the sandbox
		"PAGER=cat",       // git log, man: a pager would wait for keys the model never sends
		"GIT_PAGER=cat",
	}
	env := slices.DeleteFunc(slices.Clone(base), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") })
	})
	return append(env, set...)
}
