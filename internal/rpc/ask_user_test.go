package rpc

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// ask_user over the reverse channel, end to end through the server and an
// in-memory host: every way the host can fail to answer ends the call with
// empty answers and cancelled:true, and the server keeps serving.

func askUserTool(timeout time.Duration) func(tools.Host) []tools.Tool {
	return func(h tools.Host) []tools.Tool {
		return []tools.Tool{tools.NewAskUser(h, timeout, zerolog.Nop())}
	}
}

const askInvoke = `{"id":"c1","name":"ask_user","arguments":{"intro":"Hi","questions":[` +
	`{"name":"db","message":"DB?","type":"list","choices":["pg","lite"]},` +
	`{"id":"pw","text":"Password?","type":"password"}]}}`

// recv takes one value from ch, failing the test instead of hanging.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("the host was never asked")
		var zero T
		return zero
	}
}

// askResult decodes a tool.invoke reply.
func askResult(t *testing.T, f frame) (protocol.ToolResult, map[string]any) {
	t.Helper()
	var res protocol.ToolResult
	f.result(t, &res)
	answers, _ := res.Data["answers"].(map[string]any)
	return res, answers
}

func wantCancelled(t *testing.T, f frame, reason string) {
	t.Helper()
	res, answers := askResult(t, f)
	if !res.Success || res.Data["cancelled"] != true || len(answers) != 0 || !strings.Contains(res.Message, reason) {
		t.Errorf("result = %+v, want empty answers, cancelled and %q", res, reason)
	}
}

func TestAskUserOverTheReverseChannel(t *testing.T) {
	reqs := make(chan frame, 1)
	h := startHost(t, hostOpts{tools: askUserTool(0), onReverse: func(f frame) (any, *protocol.WireError) {
		reqs <- f
		return map[string]any{"answers": map[string]any{"db": "lite", "pw": "s3cret", "ghost": "boo"}}, nil
	}})
	res, answers := askResult(t, h.call(1, "tool.invoke", askInvoke))
	f := recv(t, reqs)
	if f.Method != protocol.MethodAskUserRequest || !strings.HasPrefix(string(f.ID), `"srv_`) {
		t.Errorf("reverse request = %s", f.raw)
	}
	wantParams := `{"callId":"c1","intro":"Hi","questions":[{"id":"db","text":"DB?","type":"select","options":[{"label":"pg"},{"label":"lite"}]},{"id":"pw","text":"Password?","type":"password"}]}`
	if diff := cmp.Diff(wantParams, string(f.Params)); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"db": "lite", "pw": "s3cret"}, answers); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if !res.Success || res.Data["cancelled"] != false || strings.Contains(res.Message, "s3cret") {
		t.Errorf("result = %+v", res)
	}
}

func TestAskUserHostRefusals(t *testing.T) {
	tests := []struct {
		name   string
		reply  func(frame) (any, *protocol.WireError) // nil: the host has no such method
		reason string
	}{
		{"cancel", func(frame) (any, *protocol.WireError) { return map[string]any{"cancelled": true}, nil }, "(the user cancelled)"},
		{"error reply", func(frame) (any, *protocol.WireError) {
			return nil, &protocol.WireError{Code: -32000, Message: "dialog crashed"}
		}, "dialog crashed"},
		{"method not found", nil, "(the host does not handle ask_user.request)"},
		{"wrong result type", func(frame) (any, *protocol.WireError) { return "yes", nil }, "something other than {answers}"},
		{"answers of the wrong type", func(frame) (any, *protocol.WireError) { return map[string]any{"answers": 42}, nil }, "something other than {answers}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := startHost(t, hostOpts{tools: askUserTool(0), onReverse: tt.reply})
			wantCancelled(t, h.call(1, "tool.invoke", askInvoke), tt.reason)
			var health protocol.Health
			h.call(2, protocol.MethodPing, "").result(t, &health)
		})
	}
}

// TestAskUserHostAnswersTwice: the second answer to one request is ignored
// and does not leak into the next question.
func TestAskUserHostAnswersTwice(t *testing.T) {
	ids := make(chan json.RawMessage, 2)
	n := 0
	h := startHost(t, hostOpts{tools: askUserTool(0), onReverse: func(f frame) (any, *protocol.WireError) {
		n++
		ids <- f.ID
		return map[string]any{"answers": map[string]any{"db": []string{"pg", "lite"}[n-1]}}, nil
	}})
	_, first := askResult(t, h.call(1, "tool.invoke", askInvoke))
	h.sendf(`{"jsonrpc":"2.0","id":%s,"result":{"answers":{"db":"again"}}}`, recv(t, ids))
	_, second := askResult(t, h.call(2, "tool.invoke", askInvoke))
	if first["db"] != "pg" || second["db"] != "lite" {
		t.Errorf("answers = %v then %v", first, second)
	}
}

// TestAskUserTimeout: with a timeout the call ends cancelled, and the host
// hears that the question was abandoned, so it can close its dialog.
func TestAskUserTimeout(t *testing.T) {
	asked := make(chan json.RawMessage, 1)
	h := startHost(t, hostOpts{tools: askUserTool(50 * time.Millisecond), onReverse: func(f frame) (any, *protocol.WireError) {
		asked <- f.ID
		return nil, nil // never answers
	}})
	wantCancelled(t, h.call(1, "tool.invoke", askInvoke), "no answer within 50ms (STEERABLE_ASK_USER_TIMEOUT_MS=50)")
	note := h.waitNote(protocol.NotificationCancel)
	if diff := cmp.Diff(`{"id":`+string(recv(t, asked))+`}`, string(note.Params)); diff != "" {
		t.Errorf("$/cancelRequest to the host (-want +got):\n%s", diff)
	}
}

// TestAskUserCancelRequest: $/cancelRequest of the call ends the wait; the
// call is answered -32800, the host is told, and the server goes on.
func TestAskUserCancelRequest(t *testing.T) {
	asked := make(chan json.RawMessage, 1)
	h := startHost(t, hostOpts{tools: askUserTool(0), onReverse: func(f frame) (any, *protocol.WireError) {
		asked <- f.ID
		return nil, nil
	}})
	h.sendf(`{"jsonrpc":"2.0","id":1,"method":"tool.invoke","params":%s}`, askInvoke)
	srvID := recv(t, asked)
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	h.await("1").wantError(t, protocol.CodeCancelled, "request cancelled")
	if note := h.waitNote(protocol.NotificationCancel); string(note.Params) != `{"id":`+string(srvID)+`}` {
		t.Errorf("$/cancelRequest to the host = %s", note.Params)
	}
	var health protocol.Health
	h.call(2, protocol.MethodPing, "").result(t, &health)
}

// TestAskUserHostClosesStdinMidQuestion: EOF while a question is pending
// ends it cancelled (no host to answer), and the reply still goes out.
func TestAskUserHostClosesStdinMidQuestion(t *testing.T) {
	asked := make(chan struct{}, 1)
	h := startHost(t, hostOpts{tools: askUserTool(0), onReverse: func(frame) (any, *protocol.WireError) {
		asked <- struct{}{}
		return nil, nil
	}})
	h.sendf(`{"jsonrpc":"2.0","id":1,"method":"tool.invoke","params":%s}`, askInvoke)
	recv(t, asked)
	h.stdin.Close()
	wantCancelled(t, h.await("1"), "no host is connected")
}
