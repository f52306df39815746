package shellsession

import "time"

// How a read decides that the output has settled (see view and settle).
const (
	// keySettle is how long output must be quiet while the terminal is
	// read key by key (a REPL, an editor, a prompt that is not the
	// shell's) before the read returns: long enough that a program which
	// prints in a few writes has finished, short enough to feel immediate.
	keySettle = 25 * time.Millisecond
	// shellSettle stands in for keySettle when the shell itself reads the
	// terminal: its prompt marker says when it is done, so quiet output
	// ends the read only after this long (a PS1 the model replaced, which
	// has no marker). Bash prints "^C" on Ctrl-C well before its prompt.
	shellSettle = 250 * time.Millisecond
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
	fg        int           // the terminal's foreground process group (0: unknown)
	shell     bool          // the shell itself is in the foreground (not a program it runs)
}

// keyClock counts quiet output only from the moment the terminal went
// into key-by-key mode for its current foreground: bash itself takes the
// terminal back in that mode between the commands of a list
// (`cmd; sleep 1; echo two` after sleep exits, before echo runs), when
// cmd's output has been quiet for the whole sleep — without the clock,
// the read would end there, before "two". One clock serves one read.
type keyClock struct {
	on    bool
	fg    int
	since time.Time
}

// observe returns v with its quiet time cut to the time the terminal has
// been read key by key by the same process group.
func (c *keyClock) observe(v view, now time.Time) view {
	if !v.readsKeys {
		c.on = false
		return v
	}
	if !c.on || c.fg != v.fg {
		c.on, c.fg, c.since = true, v.fg, now
	}
	v.quiet = min(v.quiet, now.Sub(c.since))
	return v
}

// settleFor is how long output must be quiet while the terminal is read
// key by key.
func (v view) settleFor() time.Duration {
	if v.shell {
		return shellSettle
	}
	return keySettle
}

// settle decides whether a read returns now, and if not, when to look
// again (it also looks again on new output). A read returns when:
//   - the shell has exited (its final output is complete);
//   - yieldMs is over;
//   - the shell is back at its prompt after every line written (a
//     marker per line, nothing after the last, readline waiting) — a
//     command's end, however quiet it was before;
//   - output arrived and has been quiet for keySettle while the terminal
//     is read key by key (keyClock): a REPL, an editor or a question waits
//     (for shellSettle when the shell itself reads: its prompt is the sign).
//
// While a command runs in the foreground (line mode), the read waits for
// it, up to yieldMs: a build that pauses is not done.
func settle(v view, now, deadline time.Time) (done bool, wake time.Time) {
	switch {
	case v.exited, !now.Before(deadline):
		return true, time.Time{}
	case v.want > 0 && v.marks >= v.want && v.atMark != 0 && v.readsKeys:
		return true, time.Time{}
	case v.fresh && v.readsKeys && v.quiet >= v.settleFor():
		return true, time.Time{}
	}
	wake = deadline
	switch {
	case v.fresh && v.readsKeys:
		wake = now.Add(v.settleFor() - v.quiet)
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
