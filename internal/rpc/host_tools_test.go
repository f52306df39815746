package rpc

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

const hostToolSet = `{"tools":[
 {"name":"create_event","description":"Create a calendar event.","parameters":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]},"exposure":"deferred"},
 {"name":"garbage_tool","description":"Replies garbage.","parameters":{"type":"object"},"exposure":"deferred"},
 {"name":"failing_tool","description":"Replies an error.","parameters":{"type":"object"}},
 {"name":"silent_tool","description":"Never replies.","parameters":{"type":"object"},"source":"plugin:ignored"}]}`

// TestHostToolsOverPipe plays a host over in-memory pipes: it registers
// tools, finds one with tool_search and invokes it, answering the reverse
// tool.invoke.
func TestHostToolsOverPipe(t *testing.T) {
	var mu sync.Mutex
	var reverse []protocol.ToolCall
	h := startHost(t, hostOpts{
		search: true,
		tools:  func(host tools.Host) []tools.Tool { return []tools.Tool{sleepTool(nil)} },
		onReverse: func(f frame) (any, *protocol.WireError) {
			var call protocol.ToolCall
			json.Unmarshal(f.Params, &call)
			mu.Lock()
			reverse = append(reverse, call)
			mu.Unlock()
			switch call.Name {
			case "create_event":
				return map[string]any{"success": true, "message": "created", "data": map[string]any{"eventId": "e_1"}}, nil
			case "garbage_tool":
				return []int{1, 2, 3}, nil
			case "failing_tool":
				return nil, &protocol.WireError{Code: -32000, Message: "calendar offline"}
			}
			return nil, nil // silent_tool: never answers
		},
	})
	var reg protocol.HostToolsRegisterResult
	h.call(1, protocol.MethodHostToolsReg, strings.ReplaceAll(hostToolSet, "\n", "")).result(t, &reg)
	if reg.Registered != 4 {
		t.Fatalf("registered = %d", reg.Registered)
	}
	var list []protocol.ToolDescriptor
	h.call(2, protocol.MethodToolList, "").result(t, &list)
	for _, d := range list {
		if d.Name != "sleep" && d.Name != "tool_search" && d.Source != protocol.SourceHost {
			t.Errorf("%s has source %q, want host", d.Name, d.Source)
		}
	}

	// The search right after the reply sees the new tools.
	var res protocol.ToolResult
	h.call(3, protocol.MethodToolInvoke, `{"name":"tool_search","arguments":{"query":"calendar event"}}`).result(t, &res)
	matches, _ := json.Marshal(res.Data["matches"])
	if !res.Success || !strings.Contains(string(matches), `"name":"create_event"`) || !strings.Contains(string(matches), `"required":["title"]`) {
		t.Fatalf("tool_search after register: %+v", res)
	}

	h.call(4, protocol.MethodToolInvoke, `{"id":"call_7","name":"create_event","arguments":{"title":"standup"}}`).result(t, &res)
	if !res.Success || res.Message != "created" || res.Data["eventId"] != "e_1" || res.Data["durationMs"] == nil {
		t.Errorf("host tool result: %+v", res)
	}
	mu.Lock()
	want := protocol.ToolCall{ID: "call_7", Name: "create_event", Arguments: json.RawMessage(`{"title":"standup"}`)}
	if diff := cmp.Diff(want, reverse[0]); diff != "" {
		t.Errorf("reverse tool.invoke (-want +got):\n%s", diff)
	}
	mu.Unlock()

	h.call(5, protocol.MethodToolInvoke, `{"name":"garbage_tool","arguments":{}}`).result(t, &res)
	if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "malformed result") {
		t.Errorf("garbage reply: %+v", res)
	}
	h.call(6, protocol.MethodToolInvoke, `{"name":"failing_tool","arguments":{}}`).result(t, &res)
	if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "calendar offline") {
		t.Errorf("error reply: %+v", res)
	}

	// Cancellation reaches the host as $/cancelRequest for the reverse id.
	h.send(`{"jsonrpc":"2.0","id":7,"method":"tool.invoke","params":{"name":"silent_tool","arguments":{}}}`)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(reverse)
		mu.Unlock()
		if n == 4 || time.Now().After(deadline) {
			break
		}
	}
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}`)
	h.await("7").wantError(t, protocol.CodeCancelled, "")
	h.waitNote(protocol.NotificationCancel)

	// Bad registrations are -32602, change nothing, and the sidecar serves on.
	bad := []struct{ params, want string }{
		{`{"tools":[{"name":"sleep","description":"","parameters":{}}]}`, `"sleep" is already registered by builtin; host cannot register it`},
		{`{"tools":[{"name":"dup","description":"","parameters":{}},{"name":"dup","description":"","parameters":{}}]}`, "listed twice"},
		{`{"tools":[{"name":"x","description":"","parameters":{"type":"nonsense"}}]}`, "invalid parameters schema"},
		{`{"tools":[{"name":"x","parameters":{}}]}`, "description"},
		{`{}`, "tools"},
	}
	for i, b := range bad {
		h.call(10+i, protocol.MethodHostToolsReg, b.params).wantError(t, protocol.CodeInvalidParams, b.want)
	}
	h.call(20, protocol.MethodToolInvoke, `{"name":"tool_search","arguments":{"query":"calendar"}}`).result(t, &res)
	if m, _ := json.Marshal(res.Data["matches"]); !strings.Contains(string(m), "create_event") {
		t.Errorf("the host's tools changed after refused registrations: %+v", res)
	}

	// Re-registering replaces the set; the index follows.
	h.call(21, protocol.MethodHostToolsReg, `{"tools":[{"name":"send_email","description":"Send mail.","parameters":{"type":"object"},"exposure":"deferred"}]}`).result(t, &reg)
	h.call(22, protocol.MethodToolInvoke, `{"name":"tool_search","arguments":{"query":"calendar mail"}}`).result(t, &res)
	if m, _ := json.Marshal(res.Data["matches"]); !strings.Contains(string(m), "send_email") || strings.Contains(string(m), "create_event") || res.Data["deferredCount"] != json.Number("1") {
		t.Errorf("after re-register: %s, deferredCount %v", m, res.Data["deferredCount"])
	}
}
