package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/protocol"
)

// Bounds of the session tools' arguments (SPEC §4.2). Typed
// input is capped because bash's readline inserts it character by
// character, in time that grows with the line: 64 Ki characters take a
// fraction of a second, megabytes would take minutes.
const (
	sessionDefaultYieldMs   = 1000
	sessionMaxYieldMs       = 30000
	sessionDefaultMaxOutput = 30000
	sessionMaxChars         = 64 << 10
)

type bashSessionArgs struct {
	Command   string `json:"command"`
	YieldMs   *int   `json:"yieldMs"`
	MaxOutput *int   `json:"maxOutput"`
}

const sessionReadProps = `"yieldMs":{"type":"integer","minimum":0,"maximum":30000,"description":"Wait up to this many milliseconds for the output to settle (default 1000): the call returns as soon as the shell is back at its prompt, or a program waits for keyboard input and has gone quiet."},
"maxOutput":{"type":"integer","minimum":1000,"maximum":100000,"description":"Characters of output returned at most (default 30000); beyond that the head and tail are kept and the skipped count is given."}`

const bashSessionSchema = `{"type":"object","properties":{
"command":{"type":"string","description":"A command to type into the new shell (a newline is added). Omit it to open a bare shell."},
` + sessionReadProps + `},
"additionalProperties":false}`

// sessionEnv is what bash_session and write_stdin use.
type sessionEnv struct {
	Sessions *shellsession.Manager
	Sandbox  *sandbox.Sandbox // the sessions run under it (for its info and refusals)
	Host     Host             // hears the live output
}

// newBashSession is the bash_session tool: an interactive bash on a
// terminal under the sandbox, kept across calls (shellsession).
func newBashSession(d sessionEnv) Tool {
	desc := protocol.ToolDescriptor{
		Name: "bash_session", Mode: protocol.ModeLocal, Parameters: json.RawMessage(bashSessionSchema),
		Description: "Open an interactive bash session on a terminal in the workspace, under the same OS sandbox as bash, and optionally run a command in it. " +
			"The session keeps cd, exported variables and running programs between calls: use it for dev servers and watchers " +
			"(start them with & and read their output later), REPLs, and prompts that need answers. Continue with write_stdin. " +
			"Returns sessionId, the output so far, and state: prompt, continuation, input (a program waits for keys), running, or exited.",
	}
	return New(desc, func(ctx context.Context, call Call, a bashSessionArgs) protocol.ToolResult {
		if r := checkChars("command", a.Command); r != nil {
			return refusal(r)
		}
		live := startProgress(d.Host, call.ID)
		defer live.Close()
		res, err := d.Sessions.Open(ctx, a.Command, sessionRequest("", a.YieldMs, a.MaxOutput, live))
		if err != nil {
			return sessionRefusal(d.Sandbox, err)
		}
		return sessionResult(d.Sandbox, res)
	})
}

// checkChars refuses typed input beyond sessionMaxChars, naming the way
// around it.
func checkChars(field, s string) error {
	if n := utf8.RuneCountInString(s); n > sessionMaxChars {
		return refuse(nil, "%s is %d characters; at most %d go to the terminal per call. Write long input to a file with write_file "+
			"and feed it to the program (python3 script.py, cmd < input.txt), or send it over several calls", field, n, sessionMaxChars)
	}
	return nil
}

func sessionRequest(chars string, yieldMs, maxOutput *int, live *progress) shellsession.Request {
	yield, max := sessionDefaultYieldMs, sessionDefaultMaxOutput
	if yieldMs != nil {
		yield = *yieldMs
	}
	if maxOutput != nil {
		max = *maxOutput
	}
	return shellsession.Request{Chars: chars, Yield: time.Duration(yield) * time.Millisecond, MaxOutput: max, Live: live.WriteSession}
}

// sessionStates says, for each state, what the model can do next.
var sessionStates = map[shellsession.State]string{
	shellsession.StatePrompt:       "the shell is at its prompt",
	shellsession.StateContinuation: "the shell waits for the rest of an incomplete command (an open quote, heredoc or block): send the rest, or \"\\u0003\" to drop it",
	shellsession.StateInput:        "a program waits for keyboard input: answer with write_stdin",
	shellsession.StateRunning:      "a command is still running: call write_stdin without chars to read more, or send \"\\u0003\" (Ctrl-C) to stop it",
}

// sessionResult is a successful read as a ToolResult.
func sessionResult(sb *sandbox.Sandbox, res shellsession.Result) protocol.ToolResult {
	msg := "session " + res.ID + ": " + sessionStates[res.State]
	if res.Exited {
		msg = fmt.Sprintf("session %s: the shell exited with code %d; the session is closed", res.ID, res.ExitCode)
	}
	if res.Unwritten > 0 {
		msg += fmt.Sprintf("; %d bytes of chars were not taken: the program is not reading its input", res.Unwritten)
	}
	r := OK(msg, sessionData(sb, res))
	return r
}

func sessionData(sb *sandbox.Sandbox, res shellsession.Result) map[string]any {
	data := map[string]any{
		"sessionId": res.ID, "output": res.Output, "state": string(res.State), "exited": res.Exited,
		"truncated": res.Truncated(), "skippedChars": res.SkippedChars, "droppedBytes": res.DroppedBytes,
		"_sandbox": sb.Info().Map(),
	}
	if res.Exited {
		data["exitCode"] = res.ExitCode
	}
	if res.Unwritten > 0 {
		data["unwrittenBytes"] = res.Unwritten
	}
	return data
}

// sessionRefusal maps the session errors to results: each refusal the
// model can act on names what to do.
func sessionRefusal(sb *sandbox.Sandbox, err error) protocol.ToolResult {
	var (
		unknown *shellsession.UnknownError
		exited  *shellsession.ExitedError
		limit   *shellsession.LimitError
	)
	switch {
	case errors.As(err, &exited):
		r := Followup("%v", err)
		r.Data = sessionData(sb, exited.Final)
		return r
	case errors.As(err, &unknown):
		r := Followup("%v", err)
		r.Data = map[string]any{"sessionId": unknown.ID, "liveSessions": append([]string{}, unknown.Live...)}
		return r
	case errors.As(err, &limit):
		return Followup("%v", err)
	case errors.Is(err, sandbox.ErrUnavailable):
		return bashUnavailable(sb)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Followup("call cancelled; the session goes on, and its output is kept for the next read")
	case errors.Is(err, shellsession.ErrClosed):
		return Terminal("%v", err)
	}
	return protocol.ToolResult{Success: false, Error: fmt.Sprintf("cannot start the shell: %v", err)}
}
