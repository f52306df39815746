package tools

import (
	"context"
	"encoding/json"

	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/protocol"
)

type writeStdinArgs struct {
	SessionID string `json:"sessionId"`
	Chars     string `json:"chars"`
	YieldMs   *int   `json:"yieldMs"`
	MaxOutput *int   `json:"maxOutput"`
	Close     bool   `json:"close"`
}

const writeStdinSchema = `{"type":"object","properties":{
"sessionId":{"type":"string","description":"The session, as bash_session returned it (sh-…)."},
"chars":{"type":"string","description":"Characters to type, sent raw: end a command with \"\\n\"; \"\\u0003\" is Ctrl-C, \"\\u0004\" Ctrl-D. Omit to just read new output."},
` + sessionReadProps + `,
"close":{"type":"boolean","description":"End the session after writing chars: the shell and everything it started are killed; the last output is returned."}},
"required":["sessionId"],"additionalProperties":false}`

// newWriteStdin is the write_stdin tool: type into a bash_session and read
// what is new.
func newWriteStdin(d sessionEnv) Tool {
	desc := protocol.ToolDescriptor{
		Name: "write_stdin", Mode: protocol.ModeLocal, Parameters: json.RawMessage(writeStdinSchema),
		Description: "Type characters into a bash_session (commands, answers to prompts, \"\\u0003\" for Ctrl-C) and return the output since the last read, " +
			"once it settles or after yieldMs. Without chars it just reads (a dev server's log, a long build). close:true ends the session and kills everything it started.",
	}
	return New(desc, func(ctx context.Context, call Call, a writeStdinArgs) protocol.ToolResult {
		if r := checkChars("chars", a.Chars); r != nil {
			return refusal(r)
		}
		live := startProgress(d.Host, call.ID)
		defer live.Close()
		req := sessionRequest(a.Chars, a.YieldMs, a.MaxOutput, live)
		if a.Close {
			return closeSession(ctx, d, a.SessionID, req)
		}
		res, err := d.Sessions.Write(ctx, a.SessionID, req)
		if err != nil {
			return sessionRefusal(d.Sandbox, err)
		}
		return sessionResult(d.Sandbox, res)
	})
}

// closeSession writes chars (if any, waiting as usual), then ends the
// session; the result holds the output of both.
func closeSession(ctx context.Context, d sessionEnv, id string, req shellsession.Request) protocol.ToolResult {
	var first shellsession.Result
	if req.Chars != "" {
		var err error
		if first, err = d.Sessions.Write(ctx, id, req); err != nil {
			return sessionRefusal(d.Sandbox, err)
		}
		if first.Exited { // the characters ended it (exit): nothing left to close
			return sessionResult(d.Sandbox, first)
		}
	}
	res, err := d.Sessions.End(id, "was closed (write_stdin close:true)", req.MaxOutput)
	if err != nil {
		return sessionRefusal(d.Sandbox, err)
	}
	res.Output = first.Output + res.Output
	res.SkippedChars += first.SkippedChars
	res.DroppedBytes += first.DroppedBytes
	res.Unwritten = first.Unwritten
	return sessionResult(d.Sandbox, res)
}
