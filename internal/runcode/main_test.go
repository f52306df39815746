package runcode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

func TestMain(m *testing.M) {
	code := m.Run()
	closeShared()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	os.Exit(code)
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
		return nil
	}
	return b
}

func needPython(t testing.TB) {
	t.Helper()
	if len(Candidates(os.Getenv("PATH"))) == 0 {
		t.Skip("no python3 on PATH")
	}
}

// env is a test session: a workspace, a HOME with planted credentials, a
// sandbox with one backend, and a runtime over it.
type env struct {
	backend  string
	ws, home string
	sb       *sandbox.Sandbox
	rt       *Runtime
	dirs     []string // removed by close
}

type envOpts struct {
	limits     Limits
	confined   bool
	sbLimits   *sandbox.Limits
	candidates []string // replace the python3s of PATH (nil: PATH's)
}

// plantedEnviron is what every test session's sidecar holds besides PATH
// and HOME: a key and variables the allowlist drops.
var plantedEnviron = []string{"OPENAI_API_KEY=sk-planted-key", "PYTHONPATH=/planted", "LC_ALL=C.UTF-8", "EDITOR=vi"}

// The sandboxes of one process share their cgroup names (the owner tag;
// production opens one per session), so the tests keep one open at a
// time: the shared session of one backend, or a test's own.
var (
	sharedMu sync.Mutex
	shared   *env
	interps  = map[string]Interpreter{} // found once per backend
)

// session is the shared session of backend, with the default options.
func session(t testing.TB, backend string) *env {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil && shared.backend == backend {
		return shared
	}
	if shared != nil {
		shared.close()
		shared = nil
	}
	e, err := openEnv(t, backend, envOpts{})
	if err != nil {
		t.Fatal(err)
	}
	shared = e
	return e
}

func closeShared() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.close()
		shared = nil
	}
}

// newEnv opens a session of the test's own, closed when it ends.
func newEnv(t testing.TB, backend string, o envOpts) *env {
	t.Helper()
	closeShared()
	e, err := openEnv(t, backend, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.close)
	return e
}

func openEnv(t testing.TB, backend string, o envOpts) (*env, error) {
	t.Helper()
	needPython(t)
	be := backendFor(t, backend)
	e := &env{backend: backend}
	e.ws, e.home = e.mkdir("runcode-ws-"), e.mkdir("runcode-home-")
	tmp := e.mkdir("runcode-tmp-")
	plantCredentials(e.home)
	lim := sandbox.Limits{MaxProcs: 128, MaxMemoryBytes: 512 << 20}
	if o.sbLimits != nil {
		lim = *o.sbLimits
	}
	sb, err := sandbox.Open(context.Background(), sandbox.Options{Choice: backend, Workspace: e.ws, TempParent: tmp,
		Backends: []sandbox.Backend{be}, Environ: append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home}, plantedEnviron...),
		Deny: sandbox.DenyOptions{Home: e.home, Root: os.Geteuid() == 0}, Limits: lim})
	if err != nil {
		e.close()
		return nil, err
	}
	e.sb = sb
	if backend != "none" && sb.Info().Backend != backend {
		e.close()
		return nil, fmt.Errorf("backend %s did not pass its probe: %s", backend, sb.Summary())
	}
	e.rt = e.runtime(o)
	return e, nil
}

// runtime is a runtime over e's sandbox; with PATH's candidates it reuses
// the interpreter found for the backend before.
func (e *env) runtime(o envOpts) *Runtime {
	rt := New(Options{Sandbox: e.sb, Workspace: e.ws, Confined: o.confined, Limits: o.limits, Candidates: o.candidates})
	if o.candidates != nil {
		return rt
	}
	rt.opts.Candidates = Candidates(os.Getenv("PATH"))
	if in, ok := interps[e.backend]; ok && !o.confined {
		rt.startOnce.Do(func() {})
		rt.interp = in
		close(rt.found)
		return rt
	}
	if in, err := rt.Interpreter(); err == nil && !o.confined {
		interps[e.backend] = in
	}
	return rt
}

func (e *env) mkdir(prefix string) string {
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		panic(err)
	}
	d, _ = filepath.EvalSymlinks(d)
	e.dirs = append(e.dirs, d)
	return d
}

func (e *env) close() {
	if e.sb != nil {
		e.sb.Close()
	}
	for _, d := range e.dirs {
		os.RemoveAll(d)
	}
}

// plantCredentials puts keys where the deny list says they live.
func plantCredentials(home string) {
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.MkdirAll(filepath.Join(home, ".aws"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("PLANTED-SSH-KEY\n"), 0o600)
	os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("[default]\naws_secret_access_key = PLANTED-AWS\n"), 0o600)
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
	return runWith(t, e.rt, code, d)
}

func runWith(t testing.TB, rt *Runtime, code string, d Dispatch) Outcome {
	t.Helper()
	if d == nil {
		d = (&recorder{}).dispatch
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := rt.Run(ctx, Program{CallID: "test", Code: code}, d)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out
}

// value decodes a successful program's return value.
func value(t testing.TB, out Outcome) any {
	t.Helper()
	if out.Done == nil || !out.Done.OK {
		t.Fatalf("the program did not return: done %+v, stopped %v, exit %d, stderr %q", out.Done, out.Stopped, out.ExitCode, out.Stderr)
	}
	var v any
	if err := json.Unmarshal(out.Done.Value, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// failure is a failed program's done.
func failure(t testing.TB, out Outcome) *Done {
	t.Helper()
	if out.Done == nil || out.Done.OK {
		t.Fatalf("the program did not fail: done %+v, stopped %v, exit %d, stderr %q", out.Done, out.Stopped, out.ExitCode, out.Stderr)
	}
	return out.Done
}

// available is the first confining backend that works here.
func available(t testing.TB) string {
	t.Helper()
	for _, b := range backends {
		if err := backendErr(b); err == nil {
			return b
		}
	}
	t.Skip("no confining backend is available")
	return ""
}

func backendErr(name string) error {
	switch name {
	case "bwrap":
		return sandbox.NewBwrap("").Available()
	case "landlock":
		return sandbox.NewLandlock(sandbox.Self{}).Available()
	}
	return nil
}

// anyEnv is the shared session of the first available backend: for what
// the runner does, whatever confines it.
func anyEnv(t *testing.T) *env { return session(t, available(t)) }

// withLimits is a runtime over the shared session with other limits.
func withLimits(t *testing.T, lim Limits) *Runtime {
	return anyEnv(t).runtime(envOpts{limits: lim})
}
