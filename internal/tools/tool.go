package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"steerable.dev/sidecar/protocol"
)

// Tool is one callable tool. Descriptor's Mode and Exposure may be left
// empty: the registry classifies the mode by name and defaults the tier to
// direct. Run receives arguments already validated against Parameters.
type Tool interface {
	Descriptor() protocol.ToolDescriptor
	Run(ctx context.Context, call Call) protocol.ToolResult
}

// Preparer is implemented by tools that rewrite model JSON before schema
// validation (ask_user's alias normalisation). A non-nil result refuses the
// call with it.
type Preparer interface {
	Prepare(args json.RawMessage) (json.RawMessage, *protocol.ToolResult)
}

// Call is one invocation as a tool sees it.
type Call struct {
	ID        string
	Arguments json.RawMessage
}

// Func is the body of a typed tool: args is decoded from the validated
// arguments.
type Func[A any] func(ctx context.Context, call Call, args A) protocol.ToolResult

// New adapts a typed function into a Tool.
func New[A any](desc protocol.ToolDescriptor, run Func[A]) Tool {
	return &typed[A]{desc: desc, run: run}
}

type typed[A any] struct {
	desc protocol.ToolDescriptor
	run  Func[A]
}

func (t *typed[A]) Descriptor() protocol.ToolDescriptor { return t.desc }

func (t *typed[A]) Run(ctx context.Context, call Call) protocol.ToolResult {
	var args A
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return Followup("arguments for %s do not decode: %v; check them against the tool's schema", t.desc.Name, err)
	}
	return t.run(ctx, call, args)
}

// OK is a successful result.
func OK(message string, data map[string]any) protocol.ToolResult {
	return protocol.ToolResult{Success: true, Message: message, Data: data}
}

// Followup is a failure the model can fix; the error should say how.
func Followup(format string, args ...any) protocol.ToolResult {
	return protocol.ToolResult{Success: false, NeedsFollowup: true, Error: fmt.Sprintf(format, args...)}
}

// Terminal is a failure that retrying cannot fix.
func Terminal(format string, args ...any) protocol.ToolResult {
	return protocol.ToolResult{Success: false, Terminal: true, Error: fmt.Sprintf(format, args...)}
}

var _ Tool = (*typed[struct{}])(nil)
