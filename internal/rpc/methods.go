package rpc

import (
	"context"
	"encoding/json"
)

// method is one entry of the method table.
type method struct {
	// params names the schema in protocol/schema that the params must
	// satisfy; "" means the method takes none.
	params string
	handle func(ctx context.Context, s *Server, params json.RawMessage) (any, error)
	// system methods bypass the in-flight cap and are still served while
	// the sidecar shuts down.
	system bool
	// afterReply runs once the reply has been written.
	afterReply func(s *Server)
}

// methodTable is every host → sidecar method (SPEC §2), in one place.
func methodTable() map[string]method {
	return map[string]method{
		"system.ping":         {handle: ping, system: true},
		"system.shutdown":     {handle: shutdown, system: true, afterReply: func(s *Server) { s.beginShutdown(ReasonNormal) }},
		"system.shutdown_now": {handle: shutdown, system: true, afterReply: func(s *Server) { s.ShutdownNow(ReasonShutdownNow) }},
		"tool.list":           {params: "tool.list.params.json", handle: typed(toolList)},
		"tool.invoke":         {params: "tool.invoke.params.json", handle: typed(toolInvoke)},
		"host_tools.register": {params: "host_tools.register.params.json", handle: typed(hostToolsRegister)},
		"plugin.list":         {handle: pluginList},
		"plugin.enable":       {params: "plugin.params.json", handle: typed(pluginEnable)},
		"plugin.disable":      {params: "plugin.params.json", handle: typed(pluginDisable)},
		"plugin.unload":       {params: "plugin.params.json", handle: typed(pluginUnload)},
		"plugin.reload":       {params: "plugin.params.json", handle: typed(pluginReload)},
		"read_state.seed":     {params: "read_state.seed.params.json", handle: typed(readStateSeed)},
		"read_state.get":      {handle: readStateGet},
	}
}

// typed adapts a handler with decoded params. The params were validated
// against the method's schema already, so decoding cannot disagree with it.
func typed[P any](fn func(ctx context.Context, s *Server, p P) (any, error)) func(context.Context, *Server, json.RawMessage) (any, error) {
	return func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p P
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		return fn(ctx, s, p)
	}
}
