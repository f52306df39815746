package shellsession

import (
	"fmt"
	"strings"
	"time"

	"steerable.dev/sidecar/internal/sandbox"
)

// Request is one call's input: what to type, how long to wait, how much to
// return, and where live output goes.
type Request struct {
	Chars     string        // raw characters ("\u0003" is Ctrl-C); "" polls
	Yield     time.Duration // the longest the call waits for output to settle
	MaxOutput int           // characters returned at most (head and tail kept)
	// Live, when set, receives the session's id and the terminal's raw
	// bytes as they arrive during the call (escape sequences included),
	// for tool.progress. It is called with the session's lock held and
	// must not block.
	Live func(sessionID string, chunk []byte)
}

// State is what the session is doing when a read returns.
type State string

// The states: the shell waits for a command; for the rest of an
// incomplete one; a program reads the terminal key by key (a REPL, an
// editor, a prompt); a command runs in the foreground (or reads a whole
// line); the shell has exited.
const (
	StatePrompt       State = "prompt"
	StateContinuation State = "continuation"
	StateInput        State = "input"
	StateRunning      State = "running"
	StateExited       State = "exited"
)

// Result is what one call returns.
type Result struct {
	ID           string
	Output       string // the text since the last read, escapes stripped, clipped
	State        State
	Exited       bool
	ExitCode     int   // when Exited: the shell convention, 128+N for signal N
	SkippedChars int   // characters left out of the middle of Output (MaxOutput)
	DroppedBytes int64 // bytes the ring no longer held when read
	Unwritten    int   // bytes of Chars the program did not take in time
}

// Truncated says whether the read left anything out.
func (r Result) Truncated() bool { return r.SkippedChars > 0 || r.DroppedBytes > 0 }

// Info describes a session for a host UI (session.list).
type Info struct {
	ID           string
	Command      string // what bash_session was opened with ("" for a bare shell)
	StartedAt    time.Time
	LastActivity time.Time // the end of the last call that touched it
	Exited       bool
	ExitCode     int
}

// UnknownError is a session id that names no session: the id is
// malformed, was never issued, or ended (Ended says how).
type UnknownError struct {
	ID    string
	Ended string   // how it ended, when it is a recent one
	Live  []string // the sessions that exist
}

func (e *UnknownError) Error() string {
	live := "there are no sessions; start one with bash_session"
	if len(e.Live) > 0 {
		live = fmt.Sprintf("live sessions: %v", e.Live)
	}
	if e.Ended != "" {
		return fmt.Sprintf("session %s %s; %s", e.ID, e.Ended, live)
	}
	return fmt.Sprintf("no session %q (ids look like sh-1a2b3c4d); %s", shortID(e.ID), live)
}

// shortID keeps an error readable whatever id the model sent.
func shortID(id string) string {
	if len(id) <= 40 {
		return id
	}
	return strings.ToValidUTF8(id[:40], "") + "…"
}

// ExitedError refuses characters for a shell that has exited. Final is the
// output it left unread, and the session is gone once it is returned.
type ExitedError struct {
	ID    string
	Exit  sandbox.Exit
	Final Result
}

func (e *ExitedError) Error() string {
	return fmt.Sprintf("session %s has exited with code %d, so it takes no input; its final output is in data; "+
		"start a new one with bash_session", e.ID, e.Exit.Code)
}

// LimitError refuses a session beyond the limit.
type LimitError struct{ Max int }

func (e *LimitError) Error() string {
	return fmt.Sprintf("session limit reached (%d); close one with write_stdin close:true", e.Max)
}
