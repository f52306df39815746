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

// The attack, through the other ways a server loads code: a directory of
// modules among its arguments, a --flag=/path, and the variables that make
// an interpreter or the dynamic linker load code (path lists split on ':',
// option strings into words), pointing into the workspace or the session
// temp dir. A privileged server with any of them is refused; the same
// paths outside the model's reach, and ordinary variables, load.
func TestPrivilegedPluginLoadingModelWritableCodeIsRefused(t *testing.T) {
	type tc struct {
		name    string
		spec    func(f *fixture, s *Spec)
		refused string // "" = loads; <ws>/ stands for the workspace
	}
	inWs := func(f *fixture, name string) string {
		p := filepath.Join(f.ws, name)
		os.MkdirAll(p, 0o755)
		return p
	}
	cases := []tc{
		{"a directory argument", func(f *fixture, s *Spec) { s.Args = append(s.Args, inWs(f, "mods")) },
			"the model can write its directory " + wsMark + "mods"},
		{"a --flag=/path argument", func(f *fixture, s *Spec) { s.Args = append(s.Args, "--plugins="+f.ws+"/plugins") },
			"the model can write its path --plugins=" + wsMark + "plugins"},
		{"a path glued to a short option", func(f *fixture, s *Spec) { s.Args = append(s.Args, "-javaagent:"+f.ws+"/agent.jar") },
			"the model can write its path -javaagent:" + wsMark + "agent.jar"},
		{"a relative directory in a cwd outside", func(f *fixture, s *Spec) {
			os.Symlink(inWs(f, "lib"), filepath.Join(s.Cwd, "lib-"+filepath.Base(f.ws)))
			s.Args = append(s.Args, "lib-"+filepath.Base(f.ws))
		}, "the model can write its directory lib-"},
		{"PYTHONPATH, second entry", func(f *fixture, s *Spec) { s.Env["PYTHONPATH"] = "/usr/lib/python3:" + inWs(f, "py") },
			"the model can write its environment PYTHONPATH (" + wsMark + "py)"},
		{"NODE_OPTIONS --require", func(f *fixture, s *Spec) {
			s.Env["NODE_OPTIONS"] = "--max-old-space-size=512 --require " + f.ws + "/hook.js"
		},
			"its environment NODE_OPTIONS (" + wsMark + "hook.js)"},
		{"NODE_OPTIONS --import=", func(f *fixture, s *Spec) { s.Env["NODE_OPTIONS"] = "--import=" + f.ws + "/hook.mjs" },
			"its environment NODE_OPTIONS (" + wsMark + "hook.mjs)"},
		{"NODE_PATH", func(f *fixture, s *Spec) { s.Env["NODE_PATH"] = inWs(f, "node_modules") }, "its environment NODE_PATH"},
		{"LD_PRELOAD in the temp dir", func(f *fixture, s *Spec) { s.Env["LD_PRELOAD"] = f.sb.TempDir() + "/evil.so" },
			"its environment LD_PRELOAD (" + "<tmp>/evil.so)"},
		{"LD_LIBRARY_PATH", func(f *fixture, s *Spec) { s.Env["LD_LIBRARY_PATH"] = inWs(f, "lib") + ":/usr/lib" }, "its environment LD_LIBRARY_PATH"},
		{"PERL5LIB", func(f *fixture, s *Spec) { s.Env["PERL5LIB"] = inWs(f, "perl") }, "its environment PERL5LIB"},
		{"RUBYLIB", func(f *fixture, s *Spec) { s.Env["RUBYLIB"] = inWs(f, "rb") }, "its environment RUBYLIB"},
		{"RUBYOPT -r glued", func(f *fixture, s *Spec) { s.Env["RUBYOPT"] = "-r" + f.ws + "/x.rb" }, "its environment RUBYOPT"},
		{"CLASSPATH", func(f *fixture, s *Spec) { s.Env["CLASSPATH"] = f.ws + "/app.jar" }, "its environment CLASSPATH"},
		{"JAVA_TOOL_OPTIONS agent", func(f *fixture, s *Spec) { s.Env["JAVA_TOOL_OPTIONS"] = "-javaagent:" + f.ws + "/a.jar" },
			"its environment JAVA_TOOL_OPTIONS"},
		{"HOME in the workspace", func(f *fixture, s *Spec) { s.Env["HOME"] = f.ws }, "its environment HOME"},
		{"BASH_ENV", func(f *fixture, s *Spec) { s.Env["BASH_ENV"] = f.ws + "/.bashrc" }, "its environment BASH_ENV"},
		{"PATH", func(f *fixture, s *Spec) { s.Env["PATH"] = inWs(f, "bin") + ":/usr/bin:/bin" }, "its environment PATH"},
		{"directory argument outside", func(f *fixture, s *Spec) { s.Args = append(s.Args, realDir(t)) }, ""},
		{"PYTHONPATH outside", func(f *fixture, s *Spec) { s.Env["PYTHONPATH"] = realDir(t) + ":/usr/lib/python3" }, ""},
		{"an ordinary variable into the workspace", func(f *fixture, s *Spec) { s.Env["LOG_FILE"] = f.ws + "/server.log" }, ""},
		{"a data argument that names no path", func(f *fixture, s *Spec) { s.Args = append(s.Args, "-page=8080", "serve") }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, "")
			s := testServer(t, "p", "-read-file=false")
			s.Env["GITHUB_TOKEN"], s.Cwd = "ghp_x", realDir(t)
			c.spec(f, &s)
			err := f.m.Load(context.Background(), specs{s})
			if c.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			want := strings.ReplaceAll(c.refused, wsMark, f.ws+"/")
			want = strings.ReplaceAll(want, "<tmp>", f.sb.TempDir())
			lifecycleErr(t, err, protocol.CodePluginLoad, "grants the credentials GITHUB_TOKEN")
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q: %v", want, err)
			}
			if f.reg.Len() != 0 {
				t.Errorf("%d tools registered by a refused plugin", f.reg.Len())
			}
		})
	}
}
