package plugins

import (
	"fmt"
	"regexp"
	"sync"

	"steerable.dev/sidecar/protocol"
)

// The kinds of source (PluginRecord.source), in load order.
const (
	SourceInstalled = "installed"
	SourceDirectory = "directory"
	SourceCompiled  = "compiled-in"
	SourceRemote    = "remote"
)

// Spec is one plugin as a source found it: an external MCP server (Command
// set) or a compiled-in one (Register set).
type Spec struct {
	Name   string
	Source string // SourceInstalled, SourceDirectory, SourceCompiled or SourceRemote
	Origin string // the config file, the plugin directory entry, or "compiled-in"

	// An MCP server over stdio: the program (resolved on PATH when it has
	// no slash), its arguments, the variables added to the scrubbed
	// environment, and its working directory (absolute; "" = workspace).
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string

	// Register is a compiled-in plugin's registration function.
	Register func(Router) error

	// ToolPrefix is put before each tool name ("fs__" + "read_file").
	ToolPrefix string
	// Exposure of its tools; "" is deferred (found through tool_search).
	Exposure protocol.Exposure
	Sandbox  SandboxSpec
	// Disabled: the manifest says "disabled": true; the plugin is listed
	// but not started until plugin.enable.
	Disabled bool
	// Warnings are keys of the manifest this sidecar ignores (logged).
	Warnings []string
	// Invalid is why the manifest cannot be loaded; the plugin then fails
	// under its own name.
	Invalid error
}

// SandboxSpec is a manifest's "sandbox": "none", or {network, writable}.
type SandboxSpec struct {
	None    bool // "none": the explicit, reported opt-out
	Network bool
	// Writable are absolute directories the server may write, besides its
	// own temp dir; nil means the workspace.
	Writable []string
}

// namePattern is what a plugin name may be: it names the plugin in
// plugin.* calls, in the tools' source ("plugin:NAME") and in log lines.
// Compiled on first use, not at every start-up.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 _.@-]{0,127}$`) })

// checkName refuses a name no plugin.* call could address cleanly.
func checkName(name string) error {
	if !namePattern().MatchString(name) {
		return fmt.Errorf("plugin name %q is invalid: use 1-128 letters, digits, ' ', '_', '.', '@', '-', starting with a letter or digit", name)
	}
	return nil
}

// source is the tools' source string: "plugin:NAME".
func (s Spec) source() string { return "plugin:" + s.Name }

// external reports whether the plugin is a server process.
func (s Spec) external() bool { return s.Register == nil }

// exposure is the tier its tools get.
func (s Spec) exposure() protocol.Exposure {
	if s.Exposure == "" {
		return protocol.ExposureDeferred
	}
	return s.Exposure
}
