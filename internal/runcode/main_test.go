package runcode

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// backends are the confining Linux backends the tests run under; both
// really run here and in CI (root, user namespaces, Landlock).
var backends = []string{"bwrap", "landlock"}

func backendFor(t testing.TB, name string) sandbox.Backend {
	t.Helper()
	var b sandbox.Backend
	switch name {
	case "bwrap":
		b = sandbox.NewBwrap("")
	case "landlock":
		b = sandbox.NewLandlock(sandbox.OpenSelf("runcode.test"))
	case "none":
		b = sandbox.None{}
	}
	if err := b.Available(); err != nil {
		t.Skipf("%s is not available here: %v", name, err)
	}
	return b
}

func needPython(t testing.TB) {
	t.Helper()
	if len(Candidates(os.Getenv("PATH"))) == 0 {
		t.Skip("no python3 on PATH or in the system directories")
	}
}

// env is a test session: a workspace, a sandbox with one backend, a
// runtime over it.
type env struct {
	ws, home string
	sb       *sandbox.Sandbox
	rt       *Runtime
}

type envOpts struct {
	limits   Limits
	confined bool
	environ  []string
	home     string
	sbLimits sandbox.Limits
}

func newEnv(t testing.TB, backend string, o envOpts) *env {
	t.Helper()
	needPython(t)
	ws := realDir(t)
	home := o.home
	if home == "" {
		home = os.Getenv("HOME")
	}
	environ := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, o.environ...)
	sb, err := sandbox.Open(context.Background(), sandbox.Options{Choice: backend, Workspace: ws, TempParent: realDir(t),
		Backends: []sandbox.Backend{backendFor(t, backend)}, Environ: environ,
		Deny: sandbox.DenyOptions{Home: home, Root: os.Geteuid() == 0}, Limits: o.sbLimits})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if sb.Info().Backend != backend {
		t.Fatalf("backend %s did not pass its probe: %s", backend, sb.Summary())
	}
	rt := New(Options{Sandbox: sb, Workspace: ws, Confined: o.confined, Limits: o.limits, Candidates: Candidates(os.Getenv("PATH"))})
	return &env{ws: ws, home: home, sb: sb, rt: rt}
}

func realDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// recorder is a Dispatch that answers from fn and records the calls.
type recorder struct {
	mu    sync.Mutex
	names []string
	fn    func(ctx context.Context, tool string, args json.RawMessage) protocol.ToolResult
}

func (r *recorder) dispatch(ctx context.Context, _ int, tool string, args json.RawMessage) protocol.ToolResult {
	r.mu.Lock()
	r.names = append(r.names, tool)
	r.mu.Unlock()
	if r.fn == nil {
		return protocol.ToolResult{Success: true, Data: map[string]any{"echo": args}}
	}
	return r.fn(ctx, tool, args)
}

func (e *env) run(t testing.TB, code string, d Dispatch) Outcome {
	t.Helper()
	if d == nil {
		d = (&recorder{}).dispatch
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := e.rt.Run(ctx, Program{CallID: t.Name(), Code: code}, d)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out
}

var _ = exec.LookPath
