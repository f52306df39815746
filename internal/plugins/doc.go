// Package plugins loads third-party tools into the sidecar's registry
// (tools-spec "Third-party tools", README "Plugins"): external MCP servers
// named by a config file (STEERABLE_PLUGINS_CONFIG) or manifests in a
// directory (STEERABLE_PLUGIN_DIR), and compiled-in plugins that register
// through a Router. Their tools are dispatched like built-ins, through the
// same validation, approval and output bounds.
//
// # Lifecycle
//
// Sources (source.go) only read: they turn config files and manifests into
// Specs, a bad entry becoming an invalid Spec reported under its own name.
// The Manager (manager.go) starts the valid ones at boot, a few at a time,
// each to the end of its tools/list within STEERABLE_PLUGIN_START_TIMEOUT_MS,
// and registers each plugin's tools in one atomic swap, so a plugin that
// fails midway leaves nothing behind. plugin.disable, .enable, .reload and
// .unload act on one plugin (reload re-reads its entry and keeps the
// running plugin when the new one is invalid); a server's
// notifications/tools/list_changed swaps its set again; a server that exits
// is reported in plugin.list and checks.plugins, and its tools answer a
// follow-up error until it is reloaded. Close stops every server: stdin
// closed, then SIGTERM, then SIGKILL, each after the grace.
//
// # Launcher and protocol
//
// Process and protocol are apart, as in go-plugin. The Launcher
// (launcher.go, launch_sandbox.go) is the only code that starts, confines
// and kills processes; the MCP client above it (server.go, conn.go) speaks
// to the server's stdio through the MCP Go SDK, over internal/wire's
// framing and bounded writer, and never touches a pid.
//
// # Sandbox posture
//
// A server runs under the session's sandbox backend, like bash, with its
// own policy: its manifest's writable directories and network setting
// replace the session's, while the deny list, the socket rule and the
// limits carry over, and nothing it starts outlives it. A manifest may
// grant more than bash has ("sandbox": "none", the network, writes outside
// the workspace, credentials in its environment); such a privileged server
// is refused when its manifest, program, cwd or code-loading variables lie
// where the model can write (exposure.go), since the model could then run
// code of its own with those rights.
//
// # Schemas, in two steps
//
// Registration checks only each tool schema's shape (the mistakes servers
// make: a type that is not a JSON Schema type, properties that are not
// schemas, a required that is not a list of names) and fails the load
// naming the tool; compiling every schema costs about 0.1 ms a tool, most
// of a large server's start, so the full compile runs after registration,
// in the background. A schema that fails it makes its tool answer a
// follow-up error naming the problem and plugin.reload.
package plugins
