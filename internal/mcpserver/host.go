package mcpserver

import (
	"context"
	"encoding/json"
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

// Call implements tools.Host.
func (h *Host) Call(ctx context.Context, method string, params, result any) error {
	switch method {
	case protocol.MethodAskUserRequest:
		var p protocol.AskUserRequestParams
		if err := convert(params, &p); err != nil {
			return err
		}
		ss, err := h.elicitor(p.CallID)
		if err != nil {
			return err
		}
		res, err := askUser(ctx, ss, p)
		if err != nil {
			return err
		}
		return convert(res, result)
	case protocol.MethodApprovalRequest:
		var p protocol.ApprovalRequestParams
		if err := convert(params, &p); err != nil {
			return err
		}
		ss, err := h.elicitor(p.CallID)
		if err != nil {
			return err
		}
		res, err := approve(ctx, ss, p)
		if err != nil {
			return err
		}
		return convert(res, result)
	}
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

// Notify implements tools.Host: tool.progress becomes notifications/progress
// (the chunk as the message, the bytes streamed so far as the progress, the
// stream in _meta) when the call carried a progress token.
func (h *Host) Notify(ctx context.Context, method string, params any) error {
	if method != protocol.NotificationProgress {
		return nil
	}
	var p protocol.ToolProgressParams
	if err := convert(params, &p); err != nil {
		return err
	}
	c := h.call(p.CallID)
	if c == nil || c.token == nil {
		return nil
	}
	// stdout and stderr stream from their own goroutines: the count and the
	// send go together, or a larger progress could overtake a smaller one.
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.progress += float64(len(p.Chunk))
	return c.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: c.token, Progress: c.progress,
		Message: p.Chunk, Meta: mcp.Meta{"steerable.dev/stream": p.Stream}})
}

// convert copies v into out (a pointer) through JSON, unless v already has
// out's type; the tools hand the Host typed params and ask for typed or raw
// results.
func convert(v, out any) error {
	switch o := out.(type) {
	case *protocol.AskUserRequestParams:
		if p, ok := v.(protocol.AskUserRequestParams); ok {
			*o = p
			return nil
		}
	case *protocol.ApprovalRequestParams:
		if p, ok := v.(protocol.ApprovalRequestParams); ok {
			*o = p
			return nil
		}
	case *protocol.ToolProgressParams:
		if p, ok := v.(protocol.ToolProgressParams); ok {
			*o = p
			return nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("mcpserver: encoding %T: %w", v, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("mcpserver: decoding into %T: %w", out, err)
	}
	return nil
}

var _ tools.Host = (*Host)(nil)
