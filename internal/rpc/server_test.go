package rpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestMalformedFramesAreAnsweredAndSkipped(t *testing.T) {
	h := startHost(t, hostOpts{opts: Options{MaxFrameBytes: 4096}})
	tests := []struct {
		name, line string
		id         string
		code       protocol.Code
		msg        string
	}{
		{"not json", `{"jsonrpc":`, "null", protocol.CodeParse, "parse error"},
		{"garbage", `hello`, "null", protocol.CodeParse, "parse error"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"system.ping"}]`, "null", protocol.CodeInvalidRequest, "batch requests are not supported"},
		{"empty batch", `[]`, "null", protocol.CodeInvalidRequest, "batch"},
		{"number", `42`, "null", protocol.CodeInvalidRequest, "expected a JSON object"},
		{"string", `"x"`, "null", protocol.CodeInvalidRequest, "expected a JSON object"},
		{"no version", `{"id":7,"method":"system.ping"}`, "7", protocol.CodeInvalidRequest, `"jsonrpc" must be "2.0"`},
		{"wrong version", `{"jsonrpc":"1.0","id":8,"method":"system.ping"}`, "8", protocol.CodeInvalidRequest, `"2.0"`},
		{"numeric method", `{"jsonrpc":"2.0","id":9,"method":5}`, "9", protocol.CodeInvalidRequest, "method must be a string"},
		{"scalar params", `{"jsonrpc":"2.0","id":10,"method":"system.ping","params":3}`, "10", protocol.CodeInvalidRequest, "params must be an object or an array"},
		{"float id", `{"jsonrpc":"2.0","id":1.5,"method":"system.ping"}`, "null", protocol.CodeInvalidRequest, "id must be"},
		{"negative id", `{"jsonrpc":"2.0","id":-1,"method":"system.ping"}`, "null", protocol.CodeInvalidRequest, "id must be"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"system.ping"}`, "null", protocol.CodeInvalidRequest, "id must be"},
		{"null id request", `{"jsonrpc":"2.0","id":null,"method":"system.ping"}`, "null", protocol.CodeInvalidRequest, "id must be"},
		{"case-variant ids", `{"jsonrpc":"2.0","id":1.5,"ID":1,"method":"system.ping"}`, "null", protocol.CodeInvalidRequest, "invalid request"},
		{"neither", `{"jsonrpc":"2.0","id":11}`, "11", protocol.CodeInvalidRequest, "not a request"},
		{"both", `{"jsonrpc":"2.0","id":12,"method":"x","result":1}`, "12", protocol.CodeInvalidRequest, "not a request"},
		{"bad response error", `{"jsonrpc":"2.0","id":"srv_9","error":"boom"}`, `"srv_9"`, protocol.CodeInvalidRequest, "error must be an object"},
		{"oversized", `{"jsonrpc":"2.0","id":13,"method":"system.ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, "13", protocol.CodeInvalidRequest, "4096-byte frame limit (STEERABLE_MAX_FRAME_BYTES)"},
		{"oversized, id last", `{"jsonrpc":"2.0","method":"system.ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"},"id":"last"}`, `"last"`, protocol.CodeInvalidRequest, "frame limit"},
		{"oversized, id unrecoverable", `{"jsonrpc":"2.0","method":"system.ping","params":{"pad":"` + strings.Repeat("x", 5000) + `","id":14}}`, "null", protocol.CodeInvalidRequest, "frame limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.send(tt.line)
			h.await(tt.id).wantError(t, tt.code, tt.msg)
			// The connection is still up: the next frame is served.
			var health protocol.Health
			h.call(100, protocol.MethodPing, "").result(t, &health)
			if health.Status != protocol.StatusOK {
				t.Errorf("health = %+v", health)
			}
		})
	}
}

func TestBlankLinesAndUnknownNotificationsAreIgnored(t *testing.T) {
	h := startHost(t, hostOpts{})
	h.send("")
	h.send("   ")
	h.send(`{"jsonrpc":"2.0","method":"something.happened","params":{}}`)
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":999}}`) // unknown id
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"nope":1}}`)
	h.send(`{"jsonrpc":"2.0","id":"srv_404","result":{}}`) // reply to a reverse call never made
	var health protocol.Health
	h.call(1, protocol.MethodPing, "").result(t, &health)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.replies) != 0 {
		t.Errorf("unexpected replies: %v", h.replies)
	}
}

func TestMethodErrors(t *testing.T) {
	h := startHost(t, hostOpts{})
	h.call(1, "no.such", "{}").wantError(t, protocol.CodeMethodNotFound, "no.such")
	f := h.call(2, protocol.MethodToolInvoke, `{"name":"x","arguments":{},"extra":1}`)
	f.wantError(t, protocol.CodeInvalidParams, "extra")
	if errs, _ := f.Error.Data["errors"].([]any); len(errs) == 0 {
		t.Errorf("invalid params without data.errors: %+v", f.Error)
	}
	h.call(3, protocol.MethodToolInvoke, `{"name":"x"}`).wantError(t, protocol.CodeInvalidParams, "arguments")
	h.call(4, protocol.MethodToolInvoke, `{"name":"x","arguments":[]}`).wantError(t, protocol.CodeInvalidParams, "/arguments")
	h.call(5, protocol.MethodToolInvoke, `[1,2]`).wantError(t, protocol.CodeInvalidParams, "")
	h.call(6, protocol.MethodPing, `{"x":1}`).wantError(t, protocol.CodeInvalidParams, "takes no params")
	h.call(7, protocol.MethodToolList, `{"strategy":"progressive","view":"model"}`).wantError(t, protocol.CodePolicyDenied, "tool_search")
	var health protocol.Health
	h.call(8, protocol.MethodPing, `null`).result(t, &health)
}

func TestToolInvokeResultsAndUnknownTool(t *testing.T) {
	h := startHost(t, hostOpts{tools: func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(nil)} }})
	var res protocol.ToolResult
	h.call(1, protocol.MethodToolInvoke, `{"id":"c1","name":"sleep","arguments":{"ms":1}}`).result(t, &res)
	if !res.Success || res.Data["durationMs"] == nil {
		t.Errorf("result = %+v", res)
	}
	h.call(2, protocol.MethodToolInvoke, `{"name":"slep","arguments":{}}`).result(t, &res)
	if res.Success || !res.NeedsFollowup || fmt.Sprint(res.Data["suggestions"]) != "[sleep]" {
		t.Errorf("unknown tool result = %+v", res)
	}
	h.call(3, protocol.MethodToolInvoke, `{"name":"sleep","arguments":{"ms":"x"}}`).result(t, &res)
	if res.Success || !strings.Contains(res.Error, "/ms") {
		t.Errorf("schema failure = %+v", res)
	}
	var list []protocol.ToolDescriptor
	h.call(4, protocol.MethodToolList, `{"view":"inventory"}`).result(t, &list)
	if len(list) != 1 || list[0].Name != "sleep" || list[0].Mode != protocol.ModeLocal || list[0].Source != "builtin" {
		t.Errorf("list = %+v", list)
	}
}

func TestConcurrentRequestsReplyOutOfOrder(t *testing.T) {
	h := startHost(t, hostOpts{tools: func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(nil)} }})
	h.send(`{"jsonrpc":"2.0","id":"slow","method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":60000}}}`)
	var health protocol.Health
	h.call(2, protocol.MethodPing, "").result(t, &health) // answered while "slow" runs
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"slow"}}`)
	h.await(`"slow"`).wantError(t, protocol.CodeCancelled, "request cancelled")
}

func TestDuplicateInFlightIDIsRefused(t *testing.T) {
	started := make(chan string, 1)
	h := startHost(t, hostOpts{tools: func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(started)} }})
	h.send(`{"jsonrpc":"2.0","id":5,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":60000}}}`)
	<-started
	h.send(`{"jsonrpc":"2.0","id":5,"method":"system.ping"}`)
	h.await("5").wantError(t, protocol.CodeInvalidRequest, "already in flight")
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":5}}`)
	h.await("5").wantError(t, protocol.CodeCancelled, "cancelled")
	// Once answered, the id is free again.
	var health protocol.Health
	h.call(5, protocol.MethodPing, "").result(t, &health)
}

func TestInflightCapQueuesExcessAndSystemMethodsBypassIt(t *testing.T) {
	started := make(chan string, 10)
	h := startHost(t, hostOpts{opts: Options{MaxInflight: 2}, tools: func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(started)} }})
	for i := 1; i <= 3; i++ {
		h.sendf(`{"jsonrpc":"2.0","id":%d,"method":"tool.invoke","params":{"id":"c%d","name":"sleep","arguments":{"ms":60000}}}`, i, i)
	}
	running := map[string]bool{<-started: true, <-started: true}
	select {
	case id := <-started:
		t.Fatalf("third call %s started beyond the cap of 2", id)
	case <-time.After(100 * time.Millisecond):
	}
	var health protocol.Health
	h.call(10, protocol.MethodPing, "").result(t, &health) // not blocked by the cap
	var first string
	for id := range running {
		first = id
	}
	h.sendf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%s}}`, first[1:])
	h.await(first[1:]).wantError(t, protocol.CodeCancelled, "")
	queued := <-started
	if running[queued] {
		t.Errorf("queued call %s was already running", queued)
	}
	running[queued] = true
	delete(running, first)
	// A queued call can be cancelled before it starts.
	h.sendf(`{"jsonrpc":"2.0","id":4,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":60000}}}`)
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":4}}`)
	h.await("4").wantError(t, protocol.CodeCancelled, "")
	for id := range running {
		h.sendf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%s}}`, id[1:])
		h.await(id[1:]).wantError(t, protocol.CodeCancelled, "")
	}
}

func TestReverseCalls(t *testing.T) {
	var mu sync.Mutex
	var seenIDs []string
	h := startHost(t, hostOpts{
		tools: func(host tools.Host) []tools.Tool { return []tools.Tool{reverseTool(host)} },
		onReverse: func(f frame) (any, *protocol.WireError) {
			mu.Lock()
			seenIDs = append(seenIDs, string(f.ID))
			mu.Unlock()
			switch f.Method {
			case "answer":
				return map[string]any{"ok": true}, nil
			case "fail":
				return nil, &protocol.WireError{Code: -32000, Message: "host says no"}
			case "garbage":
				return "a string, not an object", nil
			}
			return nil, nil // never answers
		},
	})
	var res protocol.ToolResult
	h.call(1, protocol.MethodToolInvoke, `{"name":"reverse","arguments":{"method":"answer"}}`).result(t, &res)
	if !res.Success || res.Data["ok"] != true {
		t.Errorf("answered: %+v", res)
	}
	h.call(2, protocol.MethodToolInvoke, `{"name":"reverse","arguments":{"method":"fail"}}`).result(t, &res)
	if res.Success || !strings.Contains(res.Error, "host says no") {
		t.Errorf("error reply: %+v", res)
	}
	h.call(3, protocol.MethodToolInvoke, `{"name":"reverse","arguments":{"method":"garbage"}}`).result(t, &res)
	if res.Success || !strings.Contains(res.Error, "malformed result") {
		t.Errorf("garbage reply: %+v", res)
	}
	// A host that never answers: the call waits until cancelled, and the
	// host is told the reverse call was abandoned.
	h.send(`{"jsonrpc":"2.0","id":4,"method":"tool.invoke","params":{"name":"reverse","arguments":{"method":"silence"}}}`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(seenIDs)
		mu.Unlock()
		if n == 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":4}}`)
	h.await("4").wantError(t, protocol.CodeCancelled, "")
	n := h.waitNote(protocol.NotificationCancel)
	mu.Lock()
	defer mu.Unlock()
	if want := fmt.Sprintf(`{"id":%s}`, seenIDs[3]); string(n.Params) != want {
		t.Errorf("abandon notice = %s, want %s", n.Params, want)
	}
	for i, id := range seenIDs {
		if id != fmt.Sprintf(`"srv_%d"`, i+1) {
			t.Errorf("reverse ids = %v, want srv_1…", seenIDs)
			break
		}
	}
}

func TestReverseCallFailsWhenHostClosesInput(t *testing.T) {
	asked := make(chan struct{})
	h := startHost(t, hostOpts{
		tools:     func(host tools.Host) []tools.Tool { return []tools.Tool{reverseTool(host)} },
		onReverse: func(frame) (any, *protocol.WireError) { close(asked); return nil, nil },
	})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tool.invoke","params":{"name":"reverse","arguments":{"method":"wait"}}}`)
	<-asked
	h.stdin.Close() // EOF: the host can no longer answer
	var res protocol.ToolResult
	h.await("1").result(t, &res)
	if res.Success || !strings.Contains(res.Error, tools.ErrHostGone.Error()) {
		t.Errorf("result after EOF = %+v", res)
	}
	if reason := <-h.done; reason != ReasonEOF {
		t.Errorf("reason = %s", reason)
	}
	h.done <- ReasonEOF // for Cleanup
	if n := h.waitNote(protocol.NotificationShutdown); string(n.Params) != `{"reason":"eof"}` {
		t.Errorf("shutdown notice = %s", n.Params)
	}
}

func TestApprovalOverReverseChannel(t *testing.T) {
	h := startHost(t, hostOpts{
		approver: true,
		tools:    func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(nil)} },
		onReverse: func(f frame) (any, *protocol.WireError) {
			var p protocol.ApprovalRequestParams
			json.Unmarshal(f.Params, &p)
			if f.Method != protocol.MethodApprovalRequest || p.ToolName != "sleep" || p.Mode != protocol.ModeLocal {
				return nil, &protocol.WireError{Code: -32602, Message: "unexpected " + f.Method}
			}
			if p.CallID == "deny-me" {
				return protocol.ApprovalRequestResult{Decision: "deny", Reason: "not today"}, nil
			}
			return protocol.ApprovalRequestResult{Decision: "allow"}, nil
		},
	})
	var res protocol.ToolResult
	h.call(1, protocol.MethodToolInvoke, `{"id":"ok","name":"sleep","arguments":{"ms":1}}`).result(t, &res)
	if !res.Success {
		t.Errorf("allowed call: %+v", res)
	}
	h.call(2, protocol.MethodToolInvoke, `{"id":"deny-me","name":"sleep","arguments":{"ms":1}}`).result(t, &res)
	if res.Success || res.Error != "approval_denied" || !strings.Contains(res.Message, "not today") {
		t.Errorf("denied call: %+v", res)
	}
}

func TestShutdownDrainsThenNotifies(t *testing.T) {
	started := make(chan string, 1)
	h := startHost(t, hostOpts{tools: func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(started)} }})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":200}}}`)
	<-started
	if f := h.call(2, protocol.MethodShutdown, ""); string(f.Result) != "null" {
		t.Fatalf("shutdown reply = %s", f.raw)
	}
	h.call(3, protocol.MethodToolList, "").wantError(t, protocol.CodeCancelled, "shutting down")
	var health protocol.Health
	h.call(4, protocol.MethodPing, "").result(t, &health)
	if health.Status != protocol.StatusShuttingDown {
		t.Errorf("status during drain = %s", health.Status)
	}
	var res protocol.ToolResult
	h.await("1").result(t, &res) // the in-flight call finished normally
	if !res.Success {
		t.Errorf("drained call = %+v", res)
	}
	if n := h.waitNote(protocol.NotificationShutdown); string(n.Params) != `{"reason":"normal"}` {
		t.Errorf("shutdown notice = %s", n.Params)
	}
	if r := <-h.done; r != ReasonNormal {
		t.Errorf("reason = %s", r)
	}
	h.done <- ReasonNormal
}

func TestShutdownGraceCancelsStragglers(t *testing.T) {
	started := make(chan string, 1)
	h := startHost(t, hostOpts{opts: Options{ShutdownGrace: 50 * time.Millisecond}, tools: func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(started)} }})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":600000}}}`)
	<-started
	h.call(2, protocol.MethodShutdown, "")
	h.await("1").wantError(t, protocol.CodeCancelled, "shutting down")
	h.waitNote(protocol.NotificationShutdown)
}

func TestShutdownNowCancelsAtOnce(t *testing.T) {
	started := make(chan string, 1)
	h := startHost(t, hostOpts{tools: func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(started)} }})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":600000}}}`)
	<-started
	if f := h.call(2, protocol.MethodShutdownNow, ""); string(f.Result) != "null" {
		t.Fatalf("shutdown_now reply = %s", f.raw)
	}
	h.await("1").wantError(t, protocol.CodeCancelled, "")
	if r := <-h.done; r != ReasonShutdownNow {
		t.Errorf("reason = %s", r)
	}
	h.done <- ReasonShutdownNow
}

func TestReadyIsTheFirstFrame(t *testing.T) {
	h := startHost(t, hostOpts{})
	h.mu.Lock()
	first := h.notes[0]
	h.mu.Unlock()
	var p protocol.LifecycleReadyParams
	if err := json.Unmarshal(first.Params, &p); err != nil || first.Method != protocol.NotificationReady ||
		p.ProtocolVersion != protocol.ProtocolVersion || p.ListenInfo.Transport != "stdio" || p.PID == 0 {
		t.Errorf("first frame = %s", first.raw)
	}
}

func TestMCPInitializeGetsTheHint(t *testing.T) {
	h := startHost(t, hostOpts{})
	h.call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`).
		wantError(t, protocol.CodeMethodNotFound, "run `steerable-sidecar mcp`")
}
