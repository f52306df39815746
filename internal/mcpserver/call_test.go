package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func TestCallSuccessMapsDataToStructuredContent(t *testing.T) {
	h := newHarness(t, setup{})
	writeFile(t, filepath.Join(h.dir, "a.txt"), "hello\n")
	res := h.call("read_file", map[string]any{"path": "a.txt"})
	if res.IsError {
		t.Fatalf("isError: %s", text(res, 0))
	}
	d := data(t, res)
	if d["content"] != "hello\n" || len(d["version"].(string)) != 64 {
		t.Errorf("structuredContent = %v; want content and version", d)
	}
	if !strings.Contains(text(res, 0), "Read") {
		t.Errorf("first text block %q is not the message", text(res, 0))
	}
	var rendered map[string]any
	if err := json.Unmarshal([]byte(text(res, 1)), &rendered); err != nil || !cmp.Equal(rendered, d) {
		t.Errorf("second text block %q is not the data rendered as JSON (%v)", text(res, 1), err)
	}
	if flags := res.Meta[resultMetaKey].(map[string]any); flags["success"] != true {
		t.Errorf("_meta flags = %v", flags)
	}
}

func TestCallFailureIsErrorWithTheFix(t *testing.T) {
	h := newHarness(t, setup{})
	res := h.call("test_fail", map[string]any{})
	if !res.IsError {
		t.Fatal("a failed ToolResult is not isError")
	}
	if !strings.Contains(text(res, 0), "create it with write_file") {
		t.Errorf("text %q does not name the fix", text(res, 0))
	}
	if data(t, res)["missing"] != "thing" {
		t.Errorf("data lost: %v", res.StructuredContent)
	}
	if flags := res.Meta[resultMetaKey].(map[string]any); flags["needsFollowup"] != true || flags["success"] != false {
		t.Errorf("_meta flags = %v", flags)
	}
}

func TestInvalidArgumentsAreAToolError(t *testing.T) {
	h := newHarness(t, setup{})
	res := h.call("read_file", map[string]any{"path": 3})
	if !res.IsError || !strings.Contains(text(res, 0), "/path") {
		t.Errorf("bad arguments: isError %v, %q; want a tool error naming /path", res.IsError, text(res, 0))
	}
}

func TestUnknownToolIsInvalidParams(t *testing.T) {
	h := newHarness(t, setup{})
	_, err := h.cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "read_fil", Arguments: map[string]any{}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "read_file") {
		t.Fatalf("err = %v; want -32602 suggesting read_file", err)
	}
}

func TestHiddenToolsAreCallableNotListed(t *testing.T) {
	h := newHarness(t, setup{})
	if res := h.call("test_hidden", map[string]any{}); res.IsError {
		t.Errorf("a hidden tool called by name failed: %s", text(res, 0))
	}
}

func TestReadThenEditWithVersionCAS(t *testing.T) {
	h := newHarness(t, setup{})
	path := filepath.Join(h.dir, "notes.txt")
	writeFile(t, path, "alpha\nbeta\n")
	v1 := data(t, h.call("read_file", map[string]any{"path": "notes.txt"}))["version"].(string)
	edit := func(version, old, new string) *mcp.CallToolResult {
		return h.call("edit_file", map[string]any{"path": "notes.txt", "expectedVersion": version,
			"edits": []map[string]string{{"oldText": old, "newText": new}}})
	}
	res := edit(v1, "beta", "gamma")
	if res.IsError {
		t.Fatalf("edit at the read version failed: %s", text(res, 0))
	}
	v2 := data(t, res)["version"].(string)
	if v2 == v1 {
		t.Fatal("the version did not change")
	}
	stale := edit(v1, "alpha", "omega")
	if !stale.IsError || !strings.Contains(strings.ToLower(text(stale, 0)), "version") {
		t.Errorf("an edit at the stale version: isError %v, %q; want a refusal naming the version", stale.IsError, text(stale, 0))
	}
	if res := edit(v2, "alpha", "omega"); res.IsError {
		t.Errorf("an edit at the current version failed: %s", text(res, 0))
	}
}

func TestCancelledCallCancelsTheTool(t *testing.T) {
	h := newHarness(t, setup{})
	ctx, cancel := context.WithCancel(testCtx(t))
	errc := make(chan error, 1)
	go func() {
		_, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_block", Arguments: map[string]any{}})
		errc <- err
	}()
	select {
	case <-h.blockStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("test_block did not start")
	}
	cancel() // the SDK client sends notifications/cancelled
	select {
	case err := <-h.blockEnded:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the tool's context ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("notifications/cancelled did not cancel the tool's context")
	}
	if err := <-errc; err == nil {
		t.Error("the cancelled call returned a result")
	}
	// The session goes on.
	if res := h.call("test_fail", map[string]any{}); !res.IsError {
		t.Error("the session is broken after a cancellation")
	}
}

func TestProgressNeedsAToken(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	opts := mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params)
		mu.Unlock()
	}}
	h := newHarness(t, setup{client: opts})
	params := &mcp.CallToolParams{Name: "test_progress", Arguments: map[string]any{}}
	params.SetProgressToken("tok-1")
	if _, err := h.cs.CallTool(testCtx(t), params); err != nil {
		t.Fatal(err)
	}
	h.call("test_progress", map[string]any{}) // no token: no notifications
	time.Sleep(50 * time.Millisecond)         // notifications are handled asynchronously by the client
	mu.Lock()
	defer mu.Unlock()
	var msgs []string
	last := 0.0
	for _, p := range got {
		if p.ProgressToken != "tok-1" || p.Progress <= last || p.Meta["steerable.dev/stream"] != "stdout" {
			t.Errorf("notification %+v: want token tok-1, increasing progress, stream stdout", p)
		}
		last = p.Progress
		msgs = append(msgs, p.Message)
	}
	if d := cmp.Diff([]string{"one\n", "two\n", "three\n"}, msgs); d != "" {
		t.Errorf("progress messages (-want +got):\n%s", d)
	}
}

func TestReverseCallsWithoutAnMCPCounterpartFail(t *testing.T) {
	h := newHarness(t, setup{})
	for _, method := range []string{protocol.MethodToolInvoke, protocol.MethodWebSearchRequest} {
		res := h.call("test_reverse", map[string]any{"method": method})
		if !res.IsError || !strings.Contains(text(res, 0), "an MCP client answers no "+method+" requests") {
			t.Errorf("%s: isError %v, %q", method, res.IsError, text(res, 0))
		}
	}
}

func TestInflightCapMakesCallsWait(t *testing.T) {
	h := newServer(t, setup{})
	h.srv.sem = make(chan struct{}, 1)
	h.connect(t, setup{})
	go h.cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "test_block", Arguments: map[string]any{}})
	<-h.blockStarted
	ctx, cancel := context.WithTimeout(testCtx(t), 200*time.Millisecond)
	defer cancel()
	if _, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_fail", Arguments: map[string]any{}}); err == nil {
		t.Error("a second call ran past an in-flight cap of 1")
	}
}

// TestProgressIncreasesOnTheWire: chunks streamed from two goroutines at
// once (a shell's stdout and stderr) reach the client with strictly
// increasing progress, as MCP requires.
func TestProgressIncreasesOnTheWire(t *testing.T) {
	r, h := newRaw(t, setup{}, time.Second)
	burst := tools.New(protocol.ToolDescriptor{Name: "test_burst", Description: "streams from two goroutines", Mode: protocol.ModeRead,
		Parameters: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, c tools.Call, _ struct{}) protocol.ToolResult {
			var wg sync.WaitGroup
			for _, stream := range []string{"stdout", "stderr"} {
				wg.Go(func() {
					for range 2000 {
						h.host.Progress(ctx, protocol.ToolProgressParams{CallID: c.ID, Stream: stream, Chunk: "x\n"})
					}
				})
			}
			wg.Wait()
			return tools.OK("streamed", nil)
		})
	if err := h.reg.Register(protocol.SourceBuiltin, burst); err != nil {
		t.Fatal(err)
	}
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"test_burst","arguments":{}}}`)
	r.reply(`1`)
	r.mu.Lock()
	defer r.mu.Unlock()
	last, n := 0.0, 0
	for _, f := range r.lines {
		if string(f["method"]) != `"notifications/progress"` {
			continue
		}
		var p struct{ Progress float64 }
		if err := json.Unmarshal(f["params"], &p); err != nil {
			t.Fatal(err)
		}
		if p.Progress <= last {
			t.Fatalf("progress %v after %v on the wire", p.Progress, last)
		}
		last, n = p.Progress, n+1
	}
	if n != 4000 {
		t.Errorf("%d progress notifications, want 4000", n)
	}
}
