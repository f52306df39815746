package tools

import (
	"errors"
	"fmt"

	"steerable.dev/sidecar/protocol"
)

// Refusal is a tool declining a call, carried as a Go error so that the
// helpers under a tool (resolving a path, loading a file, the write gates,
// planning a patch) return error like any Go function, and one place,
// refusal, turns it into the result the model reads.
type Refusal struct {
	Message       string         // what went wrong and what to do about it
	NeedsFollowup bool           // the model can fix it; false: terminal
	Data          map[string]any // the result's data (path, code, versions)
}

func (r *Refusal) Error() string { return r.Message }

// refuse is a follow-up refusal with data (nil for none).
func refuse(data map[string]any, format string, args ...any) error {
	return &Refusal{Message: fmt.Sprintf(format, args...), NeedsFollowup: true, Data: data}
}

// refusal is the result of a refused call: a *Refusal as it says; any other
// error is a follow-up quoting it.
func refusal(err error) protocol.ToolResult {
	var r *Refusal
	if !errors.As(err, &r) {
		return Followup("%v", err)
	}
	return protocol.ToolResult{Success: false, NeedsFollowup: r.NeedsFollowup, Terminal: !r.NeedsFollowup, Error: r.Message, Data: r.Data}
}
