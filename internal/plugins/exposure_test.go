package plugins

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steerable.dev/sidecar/protocol"
)

// The attack: the model writes the workspace (and bash the session temp
// dir), so a server granted more than bash has must not run code from
// there — its program, a script argument, its manifest, or its cwd (where
// npx, node and python -m look first). An unprivileged server runs confined
// like bash wherever its code is, and a privileged one out of the model's
// reach loads.
func TestPrivilegedPluginWithModelWritableCodeIsRefused(t *testing.T) {
	type tc struct {
		name    string
		network bool // the session's STEERABLE_SANDBOX_NETWORK
		spec    func(f *fixture, s *Spec)
		refused string // "" = loads
	}
	cases := []tc{
		{"none with the default cwd", false, func(f *fixture, s *Spec) { s.Sandbox.None = true },
			`its manifest grants "sandbox": "none", which bash does not have, but the model can write its cwd `},
		{"network with its program in the workspace", false, func(f *fixture, s *Spec) {
			s.Sandbox.Network, s.Cwd, s.Command = true, stage, copyInto(t, f.ws)
		}, "grants the network, which bash does not have, but the model can write its program " + wsMark},
		{"a credential with a script in the session temp dir", false, func(f *fixture, s *Spec) {
			script := filepath.Join(f.sb.TempDir(), "server.js")
			os.WriteFile(script, []byte("// planted"), 0o644)
			s.Env["GITHUB_TOKEN"], s.Cwd, s.Args = "ghp_x", stage, append(s.Args, script)
		}, "grants the credentials GITHUB_TOKEN, which bash does not have, but the model can write its file "},
		{"writes outside with its manifest in the workspace", false, func(f *fixture, s *Spec) {
			s.Sandbox.Writable, s.Cwd, s.Origin = []string{realDir(t)}, stage, filepath.Join(f.ws, ".vscode", "mcp.json")
		}, "but the model can write its manifest "},
		{"unprivileged, program in the workspace", false, func(f *fixture, s *Spec) { s.Command = copyInto(t, f.ws) }, ""},
		{"network the session has anyway, default cwd", true, func(f *fixture, s *Spec) { s.Sandbox.Network = true }, ""},
		{"none, out of the model's reach", false, func(f *fixture, s *Spec) { s.Sandbox.None, s.Cwd = true, stage }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, "", func(o *Options) { o.Network = c.network })
			s := testServer(t, "p", "-read-file=false")
			c.spec(f, &s)
			err := f.m.Load(context.Background(), specs{s})
			if c.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			c.refused = strings.ReplaceAll(c.refused, wsMark, f.ws+"/")
			lifecycleErr(t, err, protocol.CodePluginLoad, c.refused)
			if !strings.Contains(err.Error(), `set "cwd" outside it`) {
				t.Errorf("the error names no fix: %v", err)
			}
			if f.reg.Len() != 0 {
				t.Errorf("%d tools registered by a refused plugin", f.reg.Len())
			}
		})
	}
}

// wsMark stands for the fixture's workspace in a case's want.
const wsMark = "<ws>/"

// copyInto puts a copy of the test server into dir.
func copyInto(t *testing.T, dir string) string {
	t.Helper()
	exe, err := copyExecutable(dir)
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
