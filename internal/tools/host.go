package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"steerable.dev/sidecar/protocol"
)

// Host is the reverse channel to the process that spawned the sidecar: one
// method per thing the sidecar asks of it. Serve mode implements it with the
// reverse requests ask_user.request, approval.request, tool.invoke and
// web_search.request and the notifications tool.progress and todo.updated
// (internal/rpc's Peer); MCP mode with elicitation and
// notifications/progress (internal/mcpserver's Host); the CLI with NoHost.
// Values cross it typed: no implementation converts them through JSON or
// picks behaviour by a method name.
//
// A request returns *protocol.Error when the host answers with an error (so
// errors.Is(err, protocol.ErrMethodNotFound) works), an error wrapping
// ErrHostGone when there is no host, it went away or it has no such
// back-channel, and ctx.Err() when ctx ends first. Nothing blocks past ctx.
type Host interface {
	// AskUser puts an ask_user call's questions to the person.
	AskUserHandler
	// Approve asks whether a local or destructive call may run.
	Approver
	// InvokeTool runs a host tool (toolsViaHost). A reply that is not a
	// ToolResult is *MalformedReplyError.
	InvokeTool(ctx context.Context, call protocol.ToolCall) (protocol.ToolResult, error)
	// WebSearch runs a search with the host's own credential.
	WebSearch(ctx context.Context, req protocol.WebSearchRequestParams) (protocol.WebSearchRequestResult, error)
	// Progress streams a running call's output. It never waits: when the
	// host is not keeping up it is dropped (and counted), as the next chunk
	// supersedes it.
	Progress(ctx context.Context, p protocol.ToolProgressParams)
	// TodoUpdated says todo_write changed a list; a host that cannot hear it
	// still has todo.list. It waits for room only as long as ctx.
	TodoUpdated(ctx context.Context, p protocol.TodoUpdatedParams)
}

// ErrHostGone means no host can answer: none is connected (the CLI), it
// closed its input, or writing to it failed.
var ErrHostGone = errors.New("host is not connected")

// MalformedReplyError is a host reply that does not have the shape its
// request asks for; Reply is what the host sent.
type MalformedReplyError struct {
	Reply json.RawMessage
	Err   error
}

func (e *MalformedReplyError) Error() string { return e.Err.Error() }
func (e *MalformedReplyError) Unwrap() error { return e.Err }

// DecodeToolResult decodes a host's reply to tool.invoke, which must be a
// ToolResult object with a boolean success.
func DecodeToolResult(raw json.RawMessage) (protocol.ToolResult, error) {
	var probe struct {
		Success *bool `json:"success"`
	}
	var res protocol.ToolResult
	err := json.Unmarshal(raw, &probe)
	if err == nil && probe.Success == nil {
		err = fmt.Errorf(`"success" is missing`)
	}
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	if err != nil {
		return protocol.ToolResult{}, &MalformedReplyError{Reply: raw, Err: err}
	}
	return res, nil
}

// NoHost is the Host of a process without one (the CLI): every request
// fails with ErrHostGone and notifications are dropped.
type NoHost struct{}

// AskUser implements Host.
func (NoHost) AskUser(context.Context, protocol.AskUserRequestParams) (protocol.AskUserRequestResult, error) {
	return protocol.AskUserRequestResult{}, ErrHostGone
}

// Approve implements Host.
func (NoHost) Approve(context.Context, protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	return protocol.ApprovalRequestResult{}, ErrHostGone
}

// InvokeTool implements Host.
func (NoHost) InvokeTool(context.Context, protocol.ToolCall) (protocol.ToolResult, error) {
	return protocol.ToolResult{}, ErrHostGone
}

// WebSearch implements Host.
func (NoHost) WebSearch(context.Context, protocol.WebSearchRequestParams) (protocol.WebSearchRequestResult, error) {
	return protocol.WebSearchRequestResult{}, ErrHostGone
}

// Progress implements Host.
func (NoHost) Progress(context.Context, protocol.ToolProgressParams) {}

// TodoUpdated implements Host.
func (NoHost) TodoUpdated(context.Context, protocol.TodoUpdatedParams) {}

var _ Host = NoHost{}
