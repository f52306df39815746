package rpc

import (
	"context"

	"steerable.dev/sidecar/protocol"
)

// Plugins is the plugin registry the plugin.* methods act on (SPEC §2,
// §4.7). Lifecycle errors are *protocol.Error: plugin_state for an unknown
// plugin or the wrong state, plugin_load for one that fails to start.
type Plugins interface {
	List() []protocol.PluginRecord
	Enable(ctx context.Context, name string) (protocol.PluginRecord, error)
	Disable(ctx context.Context, name string) (protocol.PluginRecord, error)
	Unload(ctx context.Context, name string) (protocol.PluginRecord, error)
	Reload(ctx context.Context, name string) (protocol.PluginRecord, error)
}

// pluginList answers plugin.list: every plugin in load order (none when no
// source is configured).
func pluginList(_ context.Context, s *Server) (any, error) {
	if s.svc.Plugins == nil {
		return protocol.PluginListResult{Plugins: []protocol.PluginRecord{}}, nil
	}
	return protocol.PluginListResult{Plugins: s.svc.Plugins.List()}, nil
}

// pluginOp adapts one lifecycle operation: {name} → {plugin: record after
// the operation}.
func pluginOp(op func(Plugins, context.Context, string) (protocol.PluginRecord, error)) func(context.Context, *Server, protocol.PluginParams) (any, error) {
	return func(ctx context.Context, s *Server, p protocol.PluginParams) (any, error) {
		if s.svc.Plugins == nil {
			return nil, protocol.Errorf(protocol.CodePluginState, "unknown plugin %q: no plugins are loaded (no plugin source is configured)", p.Name).WithData("plugin", p.Name)
		}
		rec, err := op(s.svc.Plugins, ctx, p.Name)
		if err != nil {
			return nil, err
		}
		return protocol.PluginResult{Plugin: rec}, nil
	}
}

var (
	pluginEnable  = pluginOp(Plugins.Enable)
	pluginDisable = pluginOp(Plugins.Disable)
	pluginUnload  = pluginOp(Plugins.Unload)
	pluginReload  = pluginOp(Plugins.Reload)
)
