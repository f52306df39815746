package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// callTool answers tools/call through the one dispatch pipeline (SPEC §3:
// validation, approval, sandbox, read state): the same as tool.invoke. The
// request's context is the call's: notifications/cancelled cancels it, which
// kills a running shell's process group exactly as $/cancelRequest does.
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	t, err := s.ws.get(ctx)
	if err != nil {
		return nil, err
	}
	if msg := s.ws.movedMessage(); msg != "" {
		return refusal(msg), nil
	}
	p := req.Params
	entry, ok := t.Registry.Lookup(p.Name)
	if !ok {
		// MCP: an unknown tool is a protocol error (-32602), not a result.
		sugg := t.Registry.Suggest(p.Name)
		return nil, invalidParams(unknownToolMessage(p.Name, sugg), map[string]any{"unknownTool": p.Name, "suggestions": sugg})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stop, cancel)()
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	id := tools.NewCallID()
	defer s.opts.Host.begin(id, req.Session, p.GetProgressToken())()
	res := t.Dispatcher.Dispatch(ctx, tools.Invocation{ToolCall: protocol.ToolCall{ID: id, Name: p.Name, Arguments: p.Arguments}})
	if p.Name == toolSearchName && res.Success && s.view.unlock(res) && s.isInitialized(req.Session) {
		// Before the result, so the client can refresh its list before the
		// model calls a match.
		s.notifyListChanged(ctx, req.Session)
	}
	r := shapeResult(p.Name, res, s.opts.Results)
	if flags, ok := r.Meta[resultMetaKey].(map[string]any); ok {
		flags["callId"] = id // what tool_undo takes back
	}
	if r.IsError && outputSchema(entry.Desc, s.opts.Results) != nil {
		// The TypeScript SDK client validates the structuredContent of an
		// error too, and throws instead of returning the error to the
		// model; the data stays in the JSON text block.
		r.StructuredContent = nil
	}
	return r, nil
}

// serveCall is callTool for either path, the SDK's (receive) or the
// connection's own (direct.go): a panic is logged and answered -32603, and
// the session goes on.
func (s *Server) serveCall(ctx context.Context, req *mcp.CallToolRequest) (r *mcp.CallToolResult, err error) {
	defer s.recoverHandler("tools/call", &err)
	return s.callTool(ctx, req)
}

func unknownToolMessage(name string, suggestions []string) string {
	msg := fmt.Sprintf("unknown tool: %s", name)
	if len(suggestions) > 0 {
		msg += " (did you mean " + strings.Join(suggestions, ", ") + "?)"
	}
	return msg + "; call tools/list for the tools this server offers"
}
