package rpc

import (
	"context"

	"steerable.dev/sidecar/protocol"
)

// pluginList answers plugin.list. This build loads no plugins (cmd refuses
// to start when a plugin source is configured), so the list is empty.
func pluginList(context.Context, *Server) (any, error) {
	return protocol.PluginListResult{Plugins: []protocol.PluginRecord{}}, nil
}

// pluginLifecycle answers plugin.enable/disable/unload/reload: with no
// plugins loaded, every name is unknown (SPEC §2: plugin_state).
func pluginLifecycle(_ context.Context, _ *Server, p protocol.PluginParams) (any, error) {
	return nil, protocol.Errorf(protocol.CodePluginState, "unknown plugin %q: no plugins are loaded", p.Name).WithData("plugin", p.Name)
}
