package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

// fileHarness runs the file tools through the real dispatcher on a
// temporary workspace.
type fileHarness struct {
	t     testing.TB
	dir   string // the workspace, symlinks resolved
	state *readstate.Store
	ws    *files.Workspace
	d     *Dispatcher
}

type harnessOpt func(*Deps)

func noReadGate(d *Deps)          { d.RequireReadBeforeWrite = false }
func maxBytes(n int64) harnessOpt { return func(d *Deps) { d.FileMaxBytes = n } }

func newFileHarness(t testing.TB, opts ...harnessOpt) *fileHarness {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := files.Open(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	deps := Deps{Host: NoHost{}, Log: zerolog.Nop(), Files: ws, ReadState: readstate.NewStore(),
		RequireReadBeforeWrite: true, FileMaxBytes: 64 << 20}
	for _, o := range opts {
		o(&deps)
	}
	reg := NewRegistry()
	if err := reg.Register(protocol.SourceBuiltin, Builtins(deps)...); err != nil {
		t.Fatal(err)
	}
	return &fileHarness{t: t, dir: dir, state: deps.ReadState, ws: ws, d: NewDispatcher(reg, nil, zerolog.Nop())}
}

// call dispatches a tool call and returns the result as a host would see
// it (through JSON), without durationMs.
func (h *fileHarness) call(name string, args any) protocol.ToolResult {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	res := h.d.Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{Name: name, Arguments: raw}})
	b, _ := json.Marshal(res)
	var out protocol.ToolResult
	if err := json.Unmarshal(b, &out); err != nil {
		h.t.Fatal(err)
	}
	delete(out.Data, "durationMs")
	return out
}

// ok calls and fails the test unless the result succeeded.
func (h *fileHarness) ok(name string, args any) protocol.ToolResult {
	h.t.Helper()
	res := h.call(name, args)
	if !res.Success {
		h.t.Fatalf("%s(%v) failed: %s %v", name, args, res.Error, res.Data)
	}
	return res
}

// refused calls and fails the test unless the result is a follow-up
// failure whose error contains want.
func (h *fileHarness) refused(name string, args any, want string) protocol.ToolResult {
	h.t.Helper()
	res := h.call(name, args)
	if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, want) {
		h.t.Fatalf("%s(%v) = success %v, followup %v, error %q; want a follow-up containing %q", name, args, res.Success, res.NeedsFollowup, res.Error, want)
	}
	return res
}

func (h *fileHarness) abs(rel string) string { return filepath.Join(h.dir, rel) }

func (h *fileHarness) write(rel, content string) {
	h.t.Helper()
	p := h.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *fileHarness) content(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(h.abs(rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *fileHarness) exists(rel string) bool {
	_, err := os.Lstat(h.abs(rel))
	return err == nil
}

// read runs read_file on rel and returns its version.
func (h *fileHarness) read(rel string) string {
	h.t.Helper()
	return h.ok("read_file", map[string]any{"path": rel}).Data["version"].(string)
}

// entries lists the workspace (relative names), to show nothing was left
// behind.
func (h *fileHarness) entries() []string {
	var out []string
	filepath.WalkDir(h.dir, func(p string, _ os.DirEntry, _ error) error {
		if p != h.dir {
			rel, _ := filepath.Rel(h.dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func version(s string) string { return readstate.Of([]byte(s)) }
