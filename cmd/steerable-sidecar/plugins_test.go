package main

// What the plugin scripts add to the end-to-end test binary:
//
//	mcp-test-server ARGS       the MCP test server (internal/plugins/mcptest), as a program
//	install-mcp-test-server    copy it to $WORK/bin/mcp-test-server: a bwrap-confined plugin sees
//	                           the workspace but not the go tool's build directory under /tmp
//	install-mcp-test-server outside
//	                           copy it to a fresh $OUTSIDE/mcp-test-server under /var/tmp, out of the
//	                           model's reach, for plugins granted more than bash (exposure.go)
//	wait-tool NAME             poll tool.list (≤ waitTimeout) until NAME is registered (list_changed is applied
//	                           asynchronously)
//	stderr-has TEXT            wait (≤ waitTimeout) until the sidecar's stderr holds TEXT
//	[mcpnpm]                   condition: node and the npm MCP servers are installed where a
//	                           bwrap-confined plugin can read them ($MCP_NODE_MODULES, else
//	                           bench/.cache/plugins; .ci/run installs them)
//	npm-servers-hint           set $NPM_SERVERS_HINT to why [mcpnpm] is false and a command that
//	                           works from this checkout, for the script's skip message
//
// With SIDECAR_TEST_COMPILED_PLUGIN=1 the sidecar gets one compiled-in
// plugin, "greeter" (the example of plugins.Compiled).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/exectest"
	"steerable.dev/sidecar/internal/plugins"
	"steerable.dev/sidecar/internal/scripttest"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// scriptCompiledPlugins is the compiled-in example: what Go code embedding
// the sidecar writes.
func scriptCompiledPlugins() plugins.CompiledIn {
	if os.Getenv("SIDECAR_TEST_COMPILED_PLUGIN") != "1" {
		return nil
	}
	type greetArgs struct {
		Name string `json:"name"`
	}
	greet := tools.New(protocol.ToolDescriptor{Name: "greet", Description: "Greet someone by name.", Mode: protocol.ModeRead,
		Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`)},
		func(_ context.Context, _ tools.Call, a greetArgs) protocol.ToolResult {
			return tools.OK("hello "+a.Name, nil)
		})
	return plugins.CompiledIn{{Name: "greeter", Register: func(r plugins.Router) error { return r.Register(greet) }}}
}

func cmdInstallMCPTestServer(ts *testscript.TestScript, neg bool, args []string) {
	exe, err := os.Executable()
	ts.Check(err)
	b, err := os.ReadFile(exe)
	ts.Check(err)
	dir := filepath.Join(ts.Getenv("WORK"), "bin")
	if len(args) == 1 && args[0] == "outside" {
		// Out of the model's reach (not the workspace, not the session temp
		// dir) and visible under bwrap (not /tmp).
		dir, err = os.MkdirTemp("/var/tmp", "steerable-e2e-plugin-")
		ts.Check(err)
		ts.Defer(func() { os.RemoveAll(dir) })
		ts.Setenv("OUTSIDE", dir)
	} else if len(args) != 0 {
		ts.Fatalf("usage: install-mcp-test-server [outside]")
	}
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(exectest.WriteFile(filepath.Join(dir, "mcp-test-server"), b, 0o755))
}

// npmModules is where .ci/run installs the npm MCP servers.
func npmModules() string {
	if d := os.Getenv("MCP_NODE_MODULES"); d != "" {
		return d
	}
	abs, _ := filepath.Abs("../../bench/.cache/plugins/node_modules")
	return abs
}

// npmServers are the third-party servers plugin_third_party runs, pinned
// as .ci/run pins them.
var npmServers = []string{"@modelcontextprotocol/server-everything@2026.8.31", "@modelcontextprotocol/server-filesystem@2026.8.31"}

// npmServersHint is why the npm servers cannot run here ("" when they
// can): node missing, the servers missing, or installed below /tmp, which
// bwrap's private /tmp hides from a plugin. The hint names a command that
// works from this checkout.
func npmServersHint() string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not installed (apt-get install nodejs npm)"
	}
	modules := npmModules()
	missing := false
	for _, s := range npmServers {
		name := s[:strings.LastIndex(s, "@")]
		if _, err := os.Stat(filepath.Join(modules, name, "dist/index.js")); err != nil {
			missing = true
		}
	}
	hidden := modules == "/tmp" || strings.HasPrefix(modules, "/tmp/")
	if !missing && !hidden {
		return ""
	}
	prefix, env := filepath.Dir(modules), ""
	if hidden {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = "/var/tmp"
		}
		prefix = filepath.Join(cache, "steerable-sidecar", "ci-plugins")
		env = "MCP_NODE_MODULES=" + filepath.Join(prefix, "node_modules") + " "
	}
	why := "the npm MCP servers are not installed"
	if !missing {
		why = "the npm MCP servers are installed below /tmp, which a plugin under bwrap does not see (its /tmp is private)"
	}
	return fmt.Sprintf("%s: run `npm install --prefix %s %s`, then the tests with `%sgo test ./cmd/steerable-sidecar` (.ci/run does both)",
		why, prefix, strings.Join(npmServers, " "), env)
}

func cmdNPMServersHint(ts *testscript.TestScript, neg bool, args []string) {
	ts.Setenv("NPM_SERVERS_HINT", npmServersHint())
}

func cmdStderrHas(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: stderr-has TEXT")
	}
	sess(ts).waitStderr(ts, 0, args[0])
}

func cmdWaitTool(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: wait-tool NAME")
	}
	s := sess(ts)
	deadline := time.Now().Add(waitTimeout)
	for i := 0; ; i++ {
		id := fmt.Sprintf(`"wait-tool-%d"`, i)
		s.Write(ts, `{"jsonrpc":"2.0","id":`+id+`,"method":"tool.list"}`)
		f := s.Next(ts, scripttest.ReplyTo(id))
		if strings.Contains(string(f["result"]), `"name":"`+args[0]+`"`) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("tool %s not registered within %v", args[0], waitTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
