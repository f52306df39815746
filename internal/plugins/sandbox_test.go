package plugins

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
	"steerable.dev/sidecar/protocol"
)

// The environment is the scrubbed sidecar environment plus exactly the
// manifest's env: a credential reaches a plugin only when its manifest
// names it.
func TestEnvironmentIsScrubbedPlusManifest(t *testing.T) {
	f := newFixture(t, "")
	s := testServer(t, "t")
	s.Env["EXTRA"] = "from the manifest"
	s.Env["OTHER_TOKEN"] = "named by the manifest"
	s.Cwd = stage // a credential: its cwd must be out of the model's reach
	f.load(t, s)
	res := f.call(t, "env", `{"names":["GITHUB_TOKEN","EXTRA","OTHER_TOKEN","LANG","TMPDIR"]}`)
	tmp := f.m.named("t", nil).tmp
	want := "GITHUB_TOKEN=<unset>\nEXTRA=from the manifest\nOTHER_TOKEN=named by the manifest\nLANG=C\nTMPDIR=" + tmp + "\n"
	if res.Message != want {
		t.Errorf("environment:\n%s\nwant:\n%s", res.Message, want)
	}
	if !strings.HasPrefix(tmp, f.sb.TempDir()+"/plugin-t-") {
		t.Errorf("the plugin's temp dir %s is not its own below the session's", tmp)
	}
	f.m.Disable(context.Background(), "t")
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temp dir survived disable: %v", err)
	}
}

// sandboxCase runs the write and network checks under one backend.
func sandboxCase(t *testing.T, backend string) {
	f := newFixture(t, backend)
	outside := realDir(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	open := testServer(t, "open")
	open.ToolPrefix = "open_"
	open.Sandbox, open.Cwd = SandboxSpec{Network: true, Writable: []string{outside}}, stage
	f.load(t, testServer(t, "shut"), open)

	rec := f.record(t, "shut")
	if rec.Sandbox.Backend != backend || rec.Sandbox.Network || rec.Sandbox.Enforcement == "none" {
		t.Errorf("sandbox of the default policy: %+v", rec.Sandbox)
	}
	write := func(tool, dir string) protocol.ToolResult {
		return f.call(t, tool, fmt.Sprintf(`{"path":%q,"content":"x"}`, filepath.Join(dir, "f")))
	}
	if res := write("write", f.ws); !res.Success {
		t.Errorf("writing the workspace: %+v", res)
	}
	if res := write("write", outside); res.Success {
		t.Errorf("the default policy let the plugin write %s: %+v", outside, res)
	}
	if res := f.call(t, "connect", fmt.Sprintf(`{"addr":%q}`, addr)); res.Success {
		t.Errorf("network off, yet the plugin connected: %+v", res)
	}
	// The manifest's policy: network on, writable = its list (not the
	// workspace) and its own temp dir.
	if res := write("open_write", outside); !res.Success {
		t.Errorf("writing a listed directory: %+v", res)
	}
	if res := write("open_write", f.ws); res.Success {
		t.Errorf("writable without the workspace, yet it wrote there: %+v", res)
	}
	if res := f.call(t, "open_connect", fmt.Sprintf(`{"addr":%q}`, addr)); !res.Success {
		t.Errorf("network on, yet the plugin could not connect: %+v", res)
	}
}

func TestSandboxBwrap(t *testing.T)    { sandboxCase(t, "bwrap") }
func TestSandboxLandlock(t *testing.T) { sandboxCase(t, "landlock") }

// The session's deny list holds for a plugin whose policy replaced the
// writable roots and the network: a server cannot read a denied secret,
// unless its manifest opted out of the sandbox.
func TestSandboxDenyReadCarriesOver(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			secrets := realDir(t)
			secret := filepath.Join(secrets, "token")
			if err := os.WriteFile(secret, []byte("ghp_secret"), 0o600); err != nil {
				t.Fatal(err)
			}
			f := newFixtureDenying(t, backend, []string{secrets})
			open := testServer(t, "open")
			open.ToolPrefix, open.Sandbox, open.Cwd = "open_", SandboxSpec{Network: true, Writable: []string{realDir(t)}}, stage
			free := testServer(t, "free")
			free.ToolPrefix, free.Sandbox, free.Cwd = "free_", SandboxSpec{None: true}, stage
			f.load(t, testServer(t, "shut"), open, free)
			arg := fmt.Sprintf(`{"path":%q}`, secret)
			for _, tool := range []string{"cat", "open_cat"} {
				if res := f.call(t, tool, arg); res.Success || strings.Contains(res.Message, "ghp_secret") {
					t.Errorf("%s read a denied file: %+v", tool, res)
				}
			}
			if res := f.call(t, "free_cat", arg); !res.Success || res.Message != "ghp_secret" {
				t.Errorf("the opted-out plugin could not read the file: %+v", res)
			}
		})
	}
}

func TestSandboxNoneOptOutIsReported(t *testing.T) {
	f := newFixture(t, "bwrap")
	s := testServer(t, "free")
	s.Sandbox, s.Cwd = SandboxSpec{None: true}, stage
	f.load(t, s)
	rec := f.record(t, "free")
	if !rec.Sandbox.OptOut || rec.Sandbox.Backend != "none" || rec.Sandbox.Enforcement != "none" {
		t.Errorf("sandbox %+v", rec.Sandbox)
	}
	if c := f.m.Check(); c.Status != protocol.CheckWarn || !strings.Contains(c.Message, `free (sandbox: "none")`) {
		t.Errorf("check %+v", c)
	}
	if res := f.call(t, "write", fmt.Sprintf(`{"path":%q,"content":"x"}`, filepath.Join(realDir(t), "f"))); !res.Success {
		t.Errorf("an opted-out plugin is unconfined: %+v", res)
	}
}

// No process of a plugin outlives a stop: disable, reload and Close kill
// the server and what it started, in its group or in a session of its own.
func TestStopKillsTheServersTree(t *testing.T) {
	for _, backend := range []string{"none", "landlock", "bwrap"} {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t, backend)
			f.load(t, testServer(t, "t"))
			marker := fmt.Sprintf("plugin-tree-%s-%d-%d", backend, os.Getpid(), time.Now().UnixNano())
			for _, setsid := range []bool{false, true} {
				if res := f.call(t, "spawn", fmt.Sprintf(`{"marker":"%s-%v","setsid":%v}`, marker, setsid, setsid)); !res.Success {
					t.Fatalf("spawn: %+v", res)
				}
			}
			waitProcs(t, marker, true)
			f.m.Close(0)
			waitProcs(t, marker, false)
		})
	}
}

// waitProcs waits until processes whose argv[0] starts with marker run
// (or are gone).
func waitProcs(t *testing.T, marker string, running bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := sandboxtest.Started(marker)
		if (len(pids) > 0) == running {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range pids {
				if pr, err := os.FindProcess(p); err == nil {
					pr.Kill()
				}
			}
			t.Fatalf("processes %v started as %q, want running=%v", pids, marker, running)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Under bwrap /tmp is private: a command or cwd there, outside the
// writable roots, is refused with the reason instead of bwrap's bare
// "No such file or directory".
func TestBwrapPrivateTmpIsNamed(t *testing.T) {
	f := newFixture(t, "bwrap")
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	exe, err := copyExecutable(tmp)
	if err != nil {
		t.Fatal(err)
	}
	s := testServer(t, "intmp")
	s.Command = exe
	err = f.m.Load(context.Background(), specs{s})
	lifecycleErr(t, err, protocol.CodePluginLoad, "under the bwrap sandbox /tmp is private to the plugin, so "+exe+" is not visible to it")
	s.Name, s.Sandbox.Writable, s.Cwd = "listed", []string{tmp}, stage
	f.load(t, s)

	// `node /tmp/…/index.js`: the program is visible, its script is not.
	script := filepath.Join(tmp, "index.js")
	if err := os.WriteFile(script, []byte("//"), 0o644); err != nil {
		t.Fatal(err)
	}
	s = testServer(t, "scriptintmp", script)
	err = f.m.Load(context.Background(), specs{s})
	lifecycleErr(t, err, protocol.CodePluginLoad, "under the bwrap sandbox /tmp is private to the plugin, so "+script+" is not visible to it")
}
