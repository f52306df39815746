package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// Host is the tools' reverse channel in an MCP session (tools.Host). MCP has
// its own words for two of the sidecar's reverse requests, and none for the
// others:
//
//   - ask_user.request becomes elicitation/create (a form);
//   - approval.request becomes an elicitation/create asking allow or deny;
//   - tool.invoke (host tools) and web_search.request fail with
//     tools.ErrHostGone: an MCP client has no such back-channel;
//   - tool.progress becomes notifications/progress when the client sent a
//     progress token with the call; other notifications are dropped.
//
// Every request names its tool call (callId); the Host routes it to the
// session of that call, known from begin.
type Host struct {
	log zerolog.Logger

	mu    sync.Mutex
	calls map[string]*hostCall
}

// hostCall is one running tools/call.
type hostCall struct {
	session *mcp.ServerSession
	token   any // progress token; nil when the client wants no progress

	sendMu   sync.Mutex // one progress notification at a time, in order
	progress float64    // bytes streamed so far: MCP progress must increase
}

// NewHost returns the Host to build the tools with; the Server it is given
// to routes calls through it.
func NewHost(log zerolog.Logger) *Host {
	return &Host{log: log, calls: map[string]*hostCall{}}
}

// begin records a running call; the returned func forgets it.
func (h *Host) begin(callID string, ss *mcp.ServerSession, progressToken any) func() {
	h.mu.Lock()
	h.calls[callID] = &hostCall{session: ss, token: progressToken}
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.calls, callID)
		h.mu.Unlock()
	}
}

func (h *Host) call(callID string) *hostCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[callID]
}

// errNoElicitation is a question or an approval for a client that cannot
// show one.
var errNoElicitation = errors.New("the MCP client did not declare the elicitation capability, so nobody can be asked")

// AskUser implements tools.Host: the questions become one elicitation form.
func (h *Host) AskUser(ctx context.Context, p protocol.AskUserRequestParams) (protocol.AskUserRequestResult, error) {
	ss, err := h.elicitor(p.CallID)
	if err != nil {
		return protocol.AskUserRequestResult{}, err
	}
	return askUser(ctx, ss, p)
}

// Approve implements tools.Host: an elicitation asking allow or deny.
func (h *Host) Approve(ctx context.Context, p protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	ss, err := h.elicitor(p.CallID)
	if err != nil {
		return protocol.ApprovalRequestResult{}, err
	}
	return approve(ctx, ss, p)
}

// InvokeTool implements tools.Host: an MCP client has no tool.invoke.
func (h *Host) InvokeTool(context.Context, protocol.ToolCall) (protocol.ToolResult, error) {
	return protocol.ToolResult{}, noCounterpart(protocol.MethodToolInvoke)
}

// WebSearch implements tools.Host: an MCP client has no web_search.request.
func (h *Host) WebSearch(context.Context, protocol.WebSearchRequestParams) (protocol.WebSearchRequestResult, error) {
	return protocol.WebSearchRequestResult{}, noCounterpart(protocol.MethodWebSearchRequest)
}

// TodoUpdated implements tools.Host: MCP has no such notification; the
// client reads the list with todo_write's result.
func (h *Host) TodoUpdated(context.Context, protocol.TodoUpdatedParams) {}

func noCounterpart(method string) error {
	return fmt.Errorf("%w (an MCP client answers no %s requests)", tools.ErrHostGone, method)
}

// elicitor is the session of callID, if it can elicit.
func (h *Host) elicitor(callID string) (*mcp.ServerSession, error) {
	c := h.call(callID)
	if c == nil {
		return nil, fmt.Errorf("%w (call %s is not a tools/call of this MCP session)", tools.ErrHostGone, callID)
	}
	if !canElicit(c.session) {
		return nil, errNoElicitation
	}
	return c.session, nil
}

// Progress implements tools.Host: tool.progress becomes
// notifications/progress (the chunk as the message, the bytes streamed so far
// as the progress, the stream in _meta) when the call carried a progress
// token.
func (h *Host) Progress(ctx context.Context, p protocol.ToolProgressParams) {
	c := h.call(p.CallID)
	if c == nil || c.token == nil {
		return
	}
	// stdout and stderr stream from their own goroutines: the count and the
	// send go together, or a larger progress could overtake a smaller one.
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.progress += float64(len(p.Chunk))
	_ = c.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: c.token, Progress: c.progress,
		Message: p.Chunk, Meta: mcp.Meta{"steerable.dev/stream": p.Stream}})
}

var _ tools.Host = (*Host)(nil)
