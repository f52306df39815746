package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/plugins/mcptest"
	"steerable.dev/sidecar/internal/tools"
)

// TestMain lets testscript run this test binary as the real
// steerable-sidecar command: scripts `exec steerable-sidecar …` or start a
// live session with `sidecar start`.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"steerable-sidecar": func() {
			plantSessionKey()
			extraTools = func(d tools.Deps) []tools.Tool { return append(scriptTestTools(d), mcpTestTools(d)...) }
			filesFault = scriptFilesFault(os.Getenv("SIDECAR_TEST_KILL_AT"))
			checkpointFault = scriptCheckpointFault(os.Getenv("SIDECAR_TEST_TEAR_RECORD"))
			compiledPlugins = scriptCompiledPlugins()
			os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"mcp-test-server": func() { os.Exit(mcptest.Main(os.Args[1:])) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script, one behaviour
// per file, named <area>_<behaviour>.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Setup:               setupSession,
		Cmds:                sessionCmds,
		Condition:           scriptCondition,
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
	})
}
