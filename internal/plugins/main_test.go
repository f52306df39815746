package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/exectest"
	"steerable.dev/sidecar/internal/plugins/mcptest"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// serverEnv makes the test binary run as the MCP test server.
const serverEnv = "STEERABLE_PLUGINS_TEST_SERVER"

// TestMain lets the test binary play the Landlock helper and the plugins
// the tests load (the MCP test server, re-executed go-plugin style). The
// helper comes first: it runs with the plugin's environment, and must
// confine before the server starts.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.ExecMain(os.Args[2:], os.Stderr))
	}
	if os.Getenv(serverEnv) == "1" {
		os.Exit(mcptest.Main(os.Args[1:]))
	}
	os.Exit(runTests(m))
}

// stage is a directory outside /tmp holding a copy of the test binary (the
// plugin command) and the tests' workspaces: bwrap mounts a private /tmp,
// so what the go tool builds under /tmp is out of a confined plugin's
// sight, as a workspace under /tmp is unless a writable root.
var stage, serverExe string

func runTests(m *testing.M) int {
	home, _ := os.UserHomeDir()
	var err error
	if stage, err = os.MkdirTemp(home, ".steerable-plugins-test-"); err != nil {
		stage = os.TempDir()
	}
	defer os.RemoveAll(stage)
	if serverExe, err = copyExecutable(stage); err != nil {
		fmt.Fprintln(os.Stderr, "staging the test binary:", err)
		return 1
	}
	if code := m.Run(); code != 0 {
		return code
	}
	if err := goleak.Find(); err != nil {
		fmt.Fprintln(os.Stderr, "goroutines leaked:", err)
		return 1
	}
	return 0
}

func copyExecutable(dir string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(exe))
	return out, exectest.WriteFile(out, b, 0o755)
}

// testServer is the Spec of the MCP test server with the given flags.
func testServer(t testing.TB, name string, flags ...string) Spec {
	return Spec{Name: name, Source: SourceInstalled, Origin: "test", Command: serverExe, Args: flags,
		Env: map[string]string{serverEnv: "1"}}
}

// host records the notifications a manager sends.
type host struct {
	mu    sync.Mutex
	notes []protocol.ToolProgressParams
}

func (h *host) Notify(_ context.Context, method string, params any) error {
	if p, ok := params.(protocol.ToolProgressParams); ok && method == protocol.NotificationProgress {
		h.mu.Lock()
		h.notes = append(h.notes, p)
		h.mu.Unlock()
	}
	return nil
}

func (h *host) progress() []protocol.ToolProgressParams {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]protocol.ToolProgressParams{}, h.notes...)
}

// fixture is a manager over a fresh registry, its sandbox and its host.
type fixture struct {
	m    *Manager
	reg  *tools.Registry
	host *host
	sb   *sandbox.Sandbox
	ws   string
	log  *syncBuffer
}

// newFixture opens a sandbox with the named backend ("none" by default)
// and a manager with short timeouts.
func newFixture(t testing.TB, backend string, tweak ...func(*Options)) *fixture {
	t.Helper()
	return newFixtureDenying(t, backend, nil, tweak...)
}

// newFixtureDenying is newFixture with a session deny list
// (STEERABLE_SANDBOX_DENY_READ).
func newFixtureDenying(t testing.TB, backend string, deny []string, tweak ...func(*Options)) *fixture {
	t.Helper()
	if backend == "" {
		backend = "none"
	}
	ws := realDir(t)
	self := sandbox.OpenSelf("plugins.test")
	sb, err := sandbox.Open(context.Background(), sandbox.Options{Choice: backend, Workspace: ws, TempParent: realDir(t),
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "GITHUB_TOKEN=ghp_secret", "LANG=C"}, Self: self,
		Deny: sandbox.DenyOptions{Extra: deny, Root: os.Geteuid() == 0}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if sb.Info().Backend != backend {
		t.Skipf("backend %s is not usable here: %s", backend, sb.Summary())
	}
	reg := tools.NewRegistry()
	log := &syncBuffer{}
	opts := Options{Workspace: ws, TempDir: sb.TempDir(), Environ: sb.Env(sandbox.EnvScrubbed), Version: "test",
		StartTimeout: 60 * time.Second, CallTimeout: 60 * time.Second, MaxOutputBytes: 1 << 20,
		MaxMessageBytes: 4 << 20, MaxTools: 2000, StopGrace: 500 * time.Millisecond}
	for _, f := range tweak {
		f(&opts)
	}
	h := &host{}
	m := NewManager(reg, NewSandboxLauncher(sb), h, zerolog.New(log), opts)
	t.Cleanup(func() { m.Close(0) })
	return &fixture{m: m, reg: reg, host: h, sb: sb, ws: ws, log: log}
}

// realDir is a fresh directory of the test, below the stage.
func realDir(t testing.TB) string {
	d, err := os.MkdirTemp(stage, "dir-")
	if err == nil {
		d, err = filepath.EvalSymlinks(d)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// specs is a Source of fixed specs.
type specs []Spec

func (specs) Name() string                               { return "test specs" }
func (s specs) Discover(context.Context) ([]Spec, error) { return s, nil }

// load loads the specs and fails the test on any error.
func (f *fixture) load(t *testing.T, ss ...Spec) {
	t.Helper()
	if err := f.m.Load(context.Background(), specs(ss)); err != nil {
		t.Fatal(err)
	}
}

// call dispatches a tool through the real pipeline.
func (f *fixture) call(t *testing.T, name, args string) protocol.ToolResult {
	t.Helper()
	d := tools.NewDispatcher(f.reg, nil, zerolog.Nop())
	return d.Dispatch(context.Background(), tools.Invocation{ToolCall: protocol.ToolCall{ID: "c1", Name: name, Arguments: json.RawMessage(args)}})
}

func (f *fixture) record(t *testing.T, name string) protocol.PluginRecord {
	t.Helper()
	for _, r := range f.m.List() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("plugin %q not listed", name)
	return protocol.PluginRecord{}
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// eventually polls cond for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
