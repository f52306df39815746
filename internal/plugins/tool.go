package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// maxDescription bounds a tool description from a server: it is indexed
// by tool_search and may be offered to the model on every turn.
const maxDescription = 8 << 10

// mcpTool is one tool of a running server: tools/call is its handler.
type mcpTool struct {
	desc    protocol.ToolDescriptor // as registered: the plugin's prefix and exposure applied
	srv     *server
	m       mapping
	timeout time.Duration
	reg     *tools.Registry // where it is registered: its compiled schema is there
	schemas *schemaReport   // of its registration: a schema that does not compile is reported there
}

// newMCPTool checks one tools/list entry and builds its tool, named and
// tiered as the plugin's spec says. The name is checked by the registry;
// the schema must be a JSON object (MCP requires "type": "object"; an
// absent one means no arguments) of the right shape (schema.CheckShape), so
// a bad one fails the load, named. It is compiled after registration.
func newMCPTool(t *mcp.Tool, srv *server, m mapping, spec Spec, timeout time.Duration, reg *tools.Registry) (*mcpTool, error) {
	if t == nil {
		return nil, errors.New("tools/list has a null entry")
	}
	params := json.RawMessage(`{"type":"object"}`)
	if t.InputSchema != nil {
		if err := schema.CheckShape(t.InputSchema); err != nil {
			return nil, fmt.Errorf("tool %q: invalid parameters schema: %v", t.Name, err)
		}
		raw, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q: inputSchema does not encode: %v", t.Name, err)
		}
		params = raw
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	m.tool = t.Name
	return &mcpTool{
		desc: protocol.ToolDescriptor{Name: m.name(), Description: clip.Within(desc, maxDescription), Parameters: params,
			Mode: modeOf(t), Exposure: spec.exposure()},
		srv: srv, m: m, timeout: timeout, reg: reg,
	}, nil
}

func (t *mcpTool) Descriptor() protocol.ToolDescriptor { return t.desc }

// LazySchema implements tools.LazySchema: the registry does not compile
// the schema at registration; compileLater does, after it.
func (t *mcpTool) LazySchema() {}

// Prepare implements tools.Preparer. It runs before the dispatcher
// validates the arguments, and turns a schema that does not compile —
// which the dispatcher would call an internal error — into the plugin's
// problem, named, with its fix. The compile is the registry's, once per
// registration, shared with compileLater.
func (t *mcpTool) Prepare(args json.RawMessage) (json.RawMessage, *protocol.ToolResult) {
	e, ok := t.reg.Lookup(t.desc.Name)
	if !ok || e.Tool != tools.Tool(t) {
		return args, nil
	}
	if _, err := e.Schema(); err != nil {
		if t.schemas != nil {
			t.schemas.add(clip.Within(err.Error(), 500))
		}
		res := tools.Followup("plugin tool %s cannot be called: %v; the plugin must fix its tools/list, then the host reloads it with plugin.reload {\"name\":%q}", t.desc.Name, err, t.m.plugin)
		res.Data = map[string]any{"plugin": t.m.plugin, "tool": t.m.tool, "schemaError": err.Error()}
		return nil, &res
	}
	return args, nil
}

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
		res := tools.Followup("plugin tool %s failed: the plugin answered error %d: %s", name, wire.Code, clip.Within(wire.Message, maxErrorText))
		res.Data = map[string]any{"pluginError": map[string]any{"code": wire.Code, "message": clip.Within(wire.Message, maxErrorText)}}
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

var (
	_ tools.Tool       = (*mcpTool)(nil)
	_ tools.LazySchema = (*mcpTool)(nil)
	_ tools.Preparer   = (*mcpTool)(nil)
)
