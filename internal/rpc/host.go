package rpc

import (
	"context"
	"encoding/json"

	"steerable.dev/sidecar/internal/askuser"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// The Peer is serve mode's tools.Host: each method is one reverse request
// or notification of SPEC §2, and each decodes the host's reply once into
// the type the tools take.

// AskUser implements tools.Host with ask_user.request.
func (p *Peer) AskUser(ctx context.Context, req protocol.AskUserRequestParams) (protocol.AskUserRequestResult, error) {
	var raw json.RawMessage
	if err := p.Call(ctx, protocol.MethodAskUserRequest, req, &raw); err != nil {
		return protocol.AskUserRequestResult{}, err
	}
	return askuser.DecodeReply(raw)
}

// Approve implements tools.Host with approval.request.
func (p *Peer) Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	var res protocol.ApprovalRequestResult
	err := p.Call(ctx, protocol.MethodApprovalRequest, req, &res)
	return res, err
}

// InvokeTool implements tools.Host with tool.invoke.
func (p *Peer) InvokeTool(ctx context.Context, call protocol.ToolCall) (protocol.ToolResult, error) {
	var raw json.RawMessage
	if err := p.Call(ctx, protocol.MethodToolInvoke, call, &raw); err != nil {
		return protocol.ToolResult{}, err
	}
	return tools.DecodeToolResult(raw)
}

// WebSearch implements tools.Host with web_search.request.
func (p *Peer) WebSearch(ctx context.Context, req protocol.WebSearchRequestParams) (protocol.WebSearchRequestResult, error) {
	var res protocol.WebSearchRequestResult
	err := p.Call(ctx, protocol.MethodWebSearchRequest, req, &res)
	return res, err
}

// Progress implements tools.Host with tool.progress, which never waits for
// stdout: when it is full the chunk is dropped and counted.
func (p *Peer) Progress(_ context.Context, params protocol.ToolProgressParams) {
	p.tryNotify(protocol.NotificationProgress, params)
}

// TodoUpdated implements tools.Host with todo.updated.
func (p *Peer) TodoUpdated(ctx context.Context, params protocol.TodoUpdatedParams) {
	_ = p.notify(ctx, protocol.NotificationTodoUpdated, params) // a host that cannot hear it still has todo.list
}

var _ tools.Host = (*Peer)(nil)
