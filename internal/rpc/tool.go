package rpc

import (
	"context"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// toolList answers tool.list.
func toolList(_ context.Context, s *Server, p protocol.ToolListParams) (any, error) {
	return s.svc.Registry.List(p)
}

// toolInvoke answers tool.invoke: the dispatch pipeline always produces a
// ToolResult; only the envelope (params, cancellation) is a JSON-RPC error.
func toolInvoke(ctx context.Context, s *Server, p protocol.ToolInvokeParams) (any, error) {
	return s.svc.Dispatcher.Dispatch(ctx, tools.Invocation{
		ToolCall:       protocol.ToolCall{ID: p.ID, Name: p.Name, Arguments: p.Arguments},
		ConsentGranted: p.ConsentGranted,
	}), nil
}
