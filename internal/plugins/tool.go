package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// maxDescription bounds a tool description from a server: it is indexed
// by tool_search and may be offered to the model on every turn.
const maxDescription = 8 << 10

// mcpTool is one tool of a running server: tools/call is its handler.
type mcpTool struct {
	desc    protocol.ToolDescriptor // name and tier before the plugin's prefix and exposure
	srv     *server
	m       mapping
	timeout time.Duration
}

// newMCPTool checks one tools/list entry and builds its tool. The name is
// checked by the registry; the schema must be a JSON object (MCP requires
// "type": "object"; an absent one means no arguments) and is compiled by
// the registry at registration, so a bad one fails the load, named.
func newMCPTool(t *mcp.Tool, srv *server, m mapping, timeout time.Duration) (tools.Tool, error) {
	if t == nil {
		return nil, errors.New("tools/list has a null entry")
	}
	params := json.RawMessage(`{"type":"object"}`)
	if t.InputSchema != nil {
		raw, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q: inputSchema does not encode: %v", t.Name, err)
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil || obj == nil {
			return nil, fmt.Errorf("tool %q: inputSchema must be a JSON Schema object, got %.80s", t.Name, raw)
		}
		params = raw
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	m.tool = t.Name
	return &mcpTool{
		desc: protocol.ToolDescriptor{Name: t.Name, Description: clip(desc, maxDescription), Parameters: params, Mode: modeOf(t)},
		srv:  srv, m: m, timeout: timeout,
	}, nil
}

func (t *mcpTool) Descriptor() protocol.ToolDescriptor { return t.desc }

// Run sends tools/call and maps the answer. Cancelling ctx cancels the call
// on the server (the SDK sends notifications/cancelled); a call that takes
// longer than the timeout is cancelled the same way.
func (t *mcpTool) Run(ctx context.Context, call tools.Call) protocol.ToolResult {
	if why, died := t.srv.gone(); why != "" {
		return t.unavailable(why, died)
	}
	cctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	params := &mcp.CallToolParams{Name: t.m.tool, Arguments: call.Arguments}
	token, done := t.srv.progress.start(call.ID)
	params.SetProgressToken(token)
	res, err := t.srv.session.CallTool(cctx, params)
	done()
	if err == nil {
		return t.m.result(res)
	}
	return t.failed(ctx, cctx, err)
}

// failed maps a call that got no result; data names the plugin and tool.
func (t *mcpTool) failed(ctx, cctx context.Context, err error) protocol.ToolResult {
	res := t.failure(ctx, cctx, err)
	if res.Data == nil {
		res.Data = map[string]any{}
	}
	res.Data["plugin"], res.Data["tool"] = t.m.plugin, t.m.tool
	return res
}

func (t *mcpTool) failure(ctx, cctx context.Context, err error) protocol.ToolResult {
	name := t.m.name()
	var wire *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		return tools.Followup("plugin tool %s was cancelled; the plugin was told (notifications/cancelled)", name)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tools.Followup("plugin tool %s did not answer within %d ms (STEERABLE_PLUGIN_CALL_TIMEOUT_MS); the call was cancelled on the plugin. Try a smaller request, or another tool", name, t.timeout.Milliseconds())
	case errors.As(err, &wire) && wire.Code == codeTooLarge:
		return tools.Followup("plugin tool %s returned too much: %s; ask it for less (a narrower query, a range, a page)", name, wire.Message)
	case errors.As(err, &wire):
		res := tools.Followup("plugin tool %s failed: the plugin answered error %d: %s", name, wire.Code, clip(wire.Message, maxErrorText))
		res.Data = map[string]any{"pluginError": map[string]any{"code": wire.Code, "message": clip(wire.Message, maxErrorText)}}
		return res
	}
	select { // a broken connection: say why the server is gone, once the watcher knows
	case <-t.srv.dead:
		return t.unavailable(t.srv.gone())
	case <-time.After(time.Second):
	}
	return tools.Followup("plugin tool %s failed: %v", name, err)
}

// unavailable is the answer of a tool whose server is gone: stopped by a
// lifecycle call, or dead, which only plugin.reload repairs.
func (t *mcpTool) unavailable(why string, died bool) protocol.ToolResult {
	if !died {
		res := tools.Followup("plugin %s is not running: %s", t.m.plugin, why)
		res.Data = map[string]any{"plugin": t.m.plugin, "tool": t.m.tool}
		return res
	}
	res := tools.Followup("plugin %s failed: %s; its tools fail until the host reloads it with plugin.reload {\"name\":%q}", t.m.plugin, why, t.m.plugin)
	res.Data = map[string]any{"plugin": t.m.plugin, "tool": t.m.tool, "pluginState": protocol.PluginFailed}
	return res
}

var _ tools.Tool = (*mcpTool)(nil)
