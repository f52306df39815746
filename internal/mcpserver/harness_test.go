//lint:file-ignore SA1019 the harness plays a client before 2026-07-28, which sends roots (revision.go)

package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The protocol tests drive a Server with the Go SDK's own client over its
// in-memory transport: the tools are a real registry and dispatcher with
// the real file tools, tool_search and ask_user, plus small test tools.

// setup configures one harness.
type setup struct {
	strategy  string
	approvals bool // STEERABLE_APPROVALS=host
	client    mcp.ClientOptions
	roots     []string                          // client roots (file:// URIs are made from these dirs)
	open      bool                              // the workspace comes from the roots (Options.Open, Roots)
	openNow   bool                              // Options.Open without Roots: opened at once
	results   string                            // Options.Results
	deps      func(t *testing.T, d *tools.Deps) // adds to the tools' Deps (a sandbox, todos)
}

type harness struct {
	t      *testing.T
	dir    string // the workspace
	reg    *tools.Registry
	host   *Host
	srv    *Server
	client *mcp.Client
	cs     *mcp.ClientSession
	opened chan string // roots passed to Open

	blockStarted chan string // test_block's call ids, as it starts
	blockEnded   chan error  // why test_block ended
}

// testCtx bounds every wait of a test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newHarness(t *testing.T, s setup) *harness {
	t.Helper()
	h := newServer(t, s)
	h.connect(t, s)
	return h
}

// newServer builds the harness's server without connecting a client.
func newServer(t *testing.T, s setup) *harness {
	t.Helper()
	h := &harness{t: t, dir: resolvedTemp(t), opened: make(chan string, 4),
		blockStarted: make(chan string, 8), blockEnded: make(chan error, 8)}
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	h.host = NewHost(log)
	opts := Options{Version: "test", Strategy: s.strategy, Host: h.host, Results: s.results, Log: log}
	if s.open || s.openNow {
		opts.Roots = s.open
		opts.Open = func(_ context.Context, root string) (Tools, error) {
			h.opened <- root
			dir := root
			if dir == "" {
				dir = h.dir
			}
			return h.tools(t, dir, s), nil
		}
	} else {
		tl := h.tools(t, h.dir, s)
		opts.Tools = &tl
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	return h
}

// tools builds the registry and dispatcher for dir.
func (h *harness) tools(t *testing.T, dir string, s setup) Tools {
	h.reg = tools.NewRegistry()
	ws, err := files.Open(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	log := zerolog.Nop()
	deps := tools.Deps{Host: h.host, Log: log, Registry: h.reg,
		Files: ws, ReadState: readstate.NewStore(), RequireReadBeforeWrite: true, FileMaxBytes: 1 << 20}
	if s.deps != nil {
		s.deps(t, &deps)
	}
	if err := h.reg.Register(protocol.SourceBuiltin, append(tools.Builtins(deps), h.testTools()...)...); err != nil {
		t.Fatal(err)
	}
	var approver tools.Approver
	if s.approvals {
		approver = h.host
	}
	return Tools{Registry: h.reg, Dispatcher: tools.NewDispatcher(h.reg, approver, log), Workspace: dir}
}

func (h *harness) connect(t *testing.T, s setup) {
	ct, st := mcp.NewInMemoryTransports()
	ctx := testCtx(t)
	ss, err := h.srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	h.client = mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &s.client)
	for _, r := range s.roots {
		h.client.AddRoots(&mcp.Root{URI: "file://" + r})
	}
	cs, err := h.client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.cs = cs
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
}

// call runs tools/call and fails the test on a protocol error.
func (h *harness) call(name string, args any) *mcp.CallToolResult {
	h.t.Helper()
	res, err := h.cs.CallTool(testCtx(h.t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		h.t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// data decodes a result's structuredContent.
func data(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return m
}

func text(res *mcp.CallToolResult, i int) string {
	if i >= len(res.Content) {
		return ""
	}
	if tc, ok := res.Content[i].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func resolvedTemp(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// testTools exercise the mappings; test_block reports on h.blockStarted
// and h.blockEnded.
func (h *harness) testTools() []tools.Tool {
	host := h.host
	obj := json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
	return []tools.Tool{
		tools.New(protocol.ToolDescriptor{Name: "test_fail", Description: "fails with a fix", Mode: protocol.ModeRead, Parameters: obj},
			func(context.Context, tools.Call, struct{}) protocol.ToolResult {
				r := tools.Followup("the thing is missing: create it with write_file, then call test_fail again")
				r.Data = map[string]any{"missing": "thing"}
				return r
			}),
		tools.New(protocol.ToolDescriptor{Name: "test_block", Description: "waits until cancelled", Mode: protocol.ModeRead, Parameters: obj},
			func(ctx context.Context, c tools.Call, _ struct{}) protocol.ToolResult {
				h.blockStarted <- c.ID
				<-ctx.Done()
				h.blockEnded <- ctx.Err()
				return tools.Followup("cancelled")
			}),
		tools.New(protocol.ToolDescriptor{Name: "test_sleep", Description: "sleeps ms", Mode: protocol.ModeRead,
			Parameters: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"]}`)},
			func(ctx context.Context, _ tools.Call, a struct{ Ms int }) protocol.ToolResult {
				select {
				case <-time.After(time.Duration(a.Ms) * time.Millisecond):
					return tools.OK("slept", nil)
				case <-ctx.Done():
					return tools.Followup("cancelled")
				}
			}),
		tools.New(protocol.ToolDescriptor{Name: "test_progress", Description: "streams three chunks", Mode: protocol.ModeRead, Parameters: obj},
			func(ctx context.Context, c tools.Call, _ struct{}) protocol.ToolResult {
				for _, chunk := range []string{"one\n", "two\n", "three\n"} {
					host.Progress(ctx, protocol.ToolProgressParams{CallID: c.ID, Stream: "stdout", Chunk: chunk})
				}
				return tools.OK("streamed", nil)
			}),
		tools.New(protocol.ToolDescriptor{Name: "test_reverse", Description: "a reverse call", Mode: protocol.ModeRead,
			Parameters: json.RawMessage(`{"type":"object","properties":{"method":{"type":"string"}},"required":["method"]}`)},
			func(ctx context.Context, c tools.Call, a struct{ Method string }) protocol.ToolResult {
				if err := reverseCall(ctx, host, a.Method, c.ID); err != nil {
					return tools.Followup("reverse call failed: %v", err)
				}
				return tools.OK("answered", nil)
			}),
		tools.New(protocol.ToolDescriptor{Name: "exec_thing", Description: "a local tool that needs approval", Parameters: obj},
			func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK("ran", nil) }),
		tools.New(protocol.ToolDescriptor{Name: "create_calendar_event", Description: "Create an event in the user's calendar",
			Exposure: protocol.ExposureDeferred, Parameters: obj},
			func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK("event created", nil) }),
		tools.New(protocol.ToolDescriptor{Name: "test_hidden", Description: "hidden", Mode: protocol.ModeRead,
			Exposure: protocol.ExposureHidden, Parameters: obj},
			func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK("hidden ran", nil) }),
	}
}

// reverseCall makes the reverse request a test names, by its method.
func reverseCall(ctx context.Context, host *Host, method, callID string) error {
	var err error
	switch method {
	case protocol.MethodToolInvoke:
		_, err = host.InvokeTool(ctx, protocol.ToolCall{ID: callID})
	case protocol.MethodWebSearchRequest:
		_, err = host.WebSearch(ctx, protocol.WebSearchRequestParams{})
	default:
		err = fmt.Errorf("the test harness sends no %s", method)
	}
	return err
}

func testLog(t *testing.T) zerolog.Logger {
	return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
}
