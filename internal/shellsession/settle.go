package shellsession

import "time"

// How a read decides that the output has settled (see view and settle).
const (
	// keySettle is how long output must be quiet while the terminal is
	// read key by key (a REPL, an editor, a prompt that is not the
	// shell's) before the read returns: long enough that a program which
	// prints in a few writes has finished, short enough to feel immediate.
	keySettle = 25 * time.Millisecond
	// modePoll is how often a waiting read looks at the terminal's mode,
	// which changes without output (a program switching to raw mode).
	modePoll = 25 * time.Millisecond
)

// view is what one read knows at one moment. The base of "since" is the
// write for a read that wrote characters, else the previous read.
type view struct {
	exited    bool
	fresh     bool          // output arrived since the base
	quiet     time.Duration // since the last output
	marks     int           // prompt markers since the base
	want      int           // markers that mean every line written was taken
	atMark    Mark          // the output so far ends with this marker (0: something followed it)
	readsKeys bool          // the terminal is in key-by-key mode
}

// settle decides whether a read returns now, and if not, when to look
// again (it also looks again on new output). A read returns when:
//   - the shell has exited (its final output is complete);
//   - yieldMs is over;
//   - the shell is back at its prompt after every line written (a
//     marker per line, nothing after the last, readline waiting) — a
//     command's end, however quiet it was before;
//   - output arrived and has been quiet for keySettle while the terminal
//     is read key by key: a REPL, an editor or a question waits.
//
// While a command runs in the foreground (line mode), the read waits for
// it, up to yieldMs: a build that pauses is not done.
func settle(v view, now, deadline time.Time) (done bool, wake time.Time) {
	switch {
	case v.exited, !now.Before(deadline):
		return true, time.Time{}
	case v.want > 0 && v.marks >= v.want && v.atMark != 0 && v.readsKeys:
		return true, time.Time{}
	case v.fresh && v.readsKeys && v.quiet >= keySettle:
		return true, time.Time{}
	}
	wake = deadline
	switch {
	case v.fresh && v.readsKeys:
		wake = now.Add(keySettle - v.quiet)
	case v.fresh || v.atMark != 0:
		wake = now.Add(modePoll) // the mode may change without output
	}
	if wake.After(deadline) {
		wake = deadline
	}
	return false, wake
}

// linesIn counts what makes the shell print a new prompt when it reads it:
// line ends, Ctrl-C and Ctrl-D. A read that writes none (a poll, a partial
// line) waits for one prompt.
func linesIn(chars string) int {
	n := 0
	for i := 0; i < len(chars); i++ {
		switch chars[i] {
		case '\n', '\r', 0x03, 0x04:
			n++
		}
	}
	return max(n, 1)
}
