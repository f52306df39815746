package tools

import (
	"context"
	"errors"
	"sync"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/protocol"
)

// HostTools keeps the tools that live in the host (toolsViaHost, SPEC §2):
// host_tools.register adds them to the registry with source "host", and
// running one sends tool.invoke back to the host.
type HostTools struct {
	mu   sync.Mutex // one registration at a time: each replaces the last
	reg  *Registry
	host Host
}

// NewHostTools returns the host-tool set of reg, invoked through host.
func NewHostTools(reg *Registry, host Host) *HostTools {
	return &HostTools{reg: reg, host: host}
}

// Register replaces the host's tools with descs, atomically: a descriptor
// that is invalid, a name listed twice or a name another source registered
// refuses the whole set and leaves the previous one in place. Mode and
// exposure are resolved like any tool's; a given source is ignored.
func (h *HostTools) Register(descs []protocol.ToolDescriptor) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	add := make([]Tool, len(descs))
	for i, d := range descs {
		d.Source = protocol.SourceHost
		add[i] = &hostTool{desc: d, host: h.host}
	}
	if err := h.reg.Swap(protocol.SourceHost, h.reg.Names(protocol.SourceHost), add); err != nil {
		return 0, err
	}
	return len(add), nil
}

// hostTool is one tool the host runs.
type hostTool struct {
	desc protocol.ToolDescriptor
	host Host
}

func (t *hostTool) Descriptor() protocol.ToolDescriptor { return t.desc }

// Run sends the reverse tool.invoke {id, name, arguments} and returns the
// host's ToolResult unchanged. Every way the host can fail to answer is a
// follow-up failure: the model can pick another tool or tell the user.
func (t *hostTool) Run(ctx context.Context, call Call) protocol.ToolResult {
	res, err := t.host.InvokeTool(ctx, protocol.ToolCall{ID: call.ID, Name: t.desc.Name, Arguments: call.Arguments})
	var hostErr *protocol.Error
	var bad *MalformedReplyError
	switch {
	case err == nil:
		return res
	case errors.As(err, &bad):
		res := Followup("host tool %s returned a malformed result (%v): the host must answer tool.invoke with a ToolResult {success, …}", t.desc.Name, bad.Err)
		res.Data = map[string]any{"hostReply": clip.Short(string(bad.Reply), maxQuoted)}
		return res
	case ctx.Err() != nil:
		return Followup("host tool %s was cancelled before the host answered", t.desc.Name)
	case errors.As(err, &hostErr):
		res := Followup("host tool %s failed: the host answered error %d: %s", t.desc.Name, hostErr.Code, hostErr.Message)
		res.Data = map[string]any{"hostError": map[string]any{"code": hostErr.Code, "message": hostErr.Message}}
		return res
	case errors.Is(err, ErrHostGone):
		return Followup("host tool %s cannot run: the host that registered it is not connected (%v)", t.desc.Name, err)
	default:
		return Followup("host tool %s failed: %v", t.desc.Name, err)
	}
}

// maxQuoted bounds how much of a malformed reply a result quotes.
const maxQuoted = 200

var _ Tool = (*hostTool)(nil)
