package plugins

import (
	"steerable.dev/sidecar/internal/piped"
	"steerable.dev/sidecar/protocol"
)

// Launcher starts a plugin's server process under the layer-2 sandbox. It
// is the only place that knows how processes are confined and killed, so
// the MCP code above it never touches a pid (go-plugin's split between
// process management and protocol).
type Launcher interface {
	Launch(l Launch) (Process, error)
	// Describe is what a process under p would run under, without
	// starting one (plugin.list of a plugin that is not running).
	Describe(p Policy) protocol.PluginSandbox
}

// Launch is one server process to start.
type Launch struct {
	Argv []string // Argv[0] is resolved on PATH when it has no slash
	Dir  string   // absolute working directory
	// Env is the whole environment: the scrubbed sidecar environment plus
	// the manifest's env, TMPDIR pointing at TempDir.
	Env    []string
	Policy Policy
}

// Policy is a plugin's sandbox policy (the manifest's "sandbox").
type Policy struct {
	None     bool     // sandbox:"none": the process runs unconfined
	Network  bool     // may open IP sockets
	Writable []string // absolute directories it may write, its temp dir included
}

// Process is a started server: its stdio, and a lifetime the launcher
// guarantees — Kill ends the whole tree it started, and so does the
// sidecar's exit.
type Process interface {
	piped.Child
	// Sandbox is what it runs under.
	Sandbox() protocol.PluginSandbox
}
