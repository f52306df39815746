package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// mcpClientDir is the npm project of the official MCP TypeScript SDK client
// that the testdata/mcpnode scripts run (testdata/mcpclient/e2e.mjs).
const mcpClientDir = "testdata/mcpclient"

// TestMCPNodeClient drives `steerable-sidecar mcp` with the official
// TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
// testdata/mcpclient/package-lock.json). .ci/run installs it; here it is
// installed with `npm ci` when missing. The test skips only when node (or,
// for a missing install, npm) is not on PATH.
func TestMCPNodeClient(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the MCP TypeScript SDK end-to-end scripts need it")
	}
	dir, err := filepath.Abs(mcpClientDir)
	if err != nil {
		t.Fatal(err)
	}
	installMCPClient(t, dir)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/mcpnode",
		Setup: func(env *testscript.Env) error {
			env.Setenv("MCPCLIENT", dir)
			return setupSession(env)
		},
		Cmds:                sessionCmds,
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
	})
}

func installMCPClient(t *testing.T, dir string) {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		return
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed and testdata/mcpclient/node_modules is missing: run `npm ci --prefix " + mcpClientDir + "`")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
}
