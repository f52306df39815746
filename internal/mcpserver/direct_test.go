package mcpserver

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCallParams(t *testing.T) {
	tests := []struct {
		name   string
		params string
		want   *mcp.CallToolParamsRaw // nil: the SDK decodes them
	}{
		{"name and arguments", `{"name":"read_file","arguments":{"path":"a"}}`,
			&mcp.CallToolParamsRaw{Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}},
		{"no arguments", `{"name":"x"}`, &mcp.CallToolParamsRaw{Name: "x"}},
		{"a progress token", `{"_meta":{"progressToken":7},"name":"x","arguments":{}}`,
			&mcp.CallToolParamsRaw{Name: "x", Arguments: json.RawMessage(`{}`), Meta: mcp.Meta{"progressToken": 7.0}}},
		{"a client's own _meta", `{"_meta":{"vendor/toolUseId":"t1"},"name":"x"}`,
			&mcp.CallToolParamsRaw{Name: "x", Meta: mcp.Meta{"vendor/toolUseId": "t1"}}},
		{"an unknown member is ignored, as the SDK does", `{"name":"x","extra":[1]}`, &mcp.CallToolParamsRaw{Name: "x"}},
		{"a name in another case (the SDK matches exactly)", `{"Name":"x"}`, nil},
		{"no name", `{"arguments":{}}`, nil},
		{"a name that is not a string", `{"name":7}`, nil},
		{"params that are not an object", `"scalar"`, nil},
		{"null params", `null`, nil},
		{"no params", ``, nil},
		{"_meta that is not an object", `{"name":"x","_meta":["p"]}`, nil},
		{"the sessionless protocol's version", `{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, nil},
		{"a multi-round-trip retry", `{"name":"x","requestState":"s"}`, nil},
		{"multi-round-trip answers", `{"name":"x","inputResponses":{}}`, nil},
	}
	for _, tt := range tests {
		got, ok := callParams(json.RawMessage(tt.params))
		if ok != (tt.want != nil) {
			t.Errorf("%s: taken = %v, want %v", tt.name, ok, tt.want != nil)
			continue
		}
		if diff := cmp.Diff(tt.want, got); ok && diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}

func FuzzCallParams(f *testing.F) {
	for _, s := range []string{`{"name":"x","arguments":{"path":"a"}}`, `{"_meta":{"progressToken":"p"},"name":"x"}`,
		`{"Name":"x"}`, `{"name":null}`, `[]`, `{"name":"x","_meta":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, ok := callParams(raw)
		if !ok {
			return
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(raw, &members); err != nil {
			t.Fatalf("took %q, which is not a JSON object: %v", raw, err)
		}
		if name := members["name"]; len(name) == 0 || name[0] != '"' {
			t.Fatalf("took %q without a string name", raw)
		}
		if _, ok := p.Meta[mcp.MetaKeyProtocolVersion]; ok {
			t.Fatalf("took %q, a sessionless call the SDK must answer", raw)
		}
	})
}

// TestDirectReplyIsTheSDKs: a tools/call answered by the connection itself
// carries the same result as the SDK's own encoding (the in-memory
// transport), for a failure and for a success with data.
func TestDirectReplyIsTheSDKs(t *testing.T) {
	for _, tc := range []struct{ tool, args string }{
		{"test_fail", `{}`},
		{"read_file", `{"path":"page.txt"}`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			r, h := newRaw(t, setup{}, time.Second)
			writeFile(t, filepath.Join(h.dir, "page.txt"), "one\ntwo \"quoted\" <b>&</b>\n")
			r.initialize()
			r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tc.tool + `","arguments":` + tc.args + `}}`)
			direct := r.reply(`1`)["result"]

			mem := newHarness(t, setup{})
			writeFile(t, filepath.Join(mem.dir, "page.txt"), "one\ntwo \"quoted\" <b>&</b>\n")
			var args map[string]any
			if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(mem.call(tc.tool, args))
			if err != nil {
				t.Fatal(err)
			}
			got := decodeAny(t, []byte(strings.ReplaceAll(string(direct), h.dir, mem.dir))) // the two workspaces
			if diff := cmp.Diff(decodeAny(t, b), got, ignoreDuration()); diff != "" {
				t.Errorf("the direct reply differs from the SDK's encoding (-sdk +direct):\n%s", diff)
			}
		})
	}
}

func decodeAny(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

// ignoreDuration drops data.durationMs and _meta's callId, which differ
// between two runs, from structuredContent and its text rendering.
func ignoreDuration() cmp.Option {
	return cmp.Transformer("noDuration", func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			switch {
			case k == "durationMs", k == "callId":
				continue
			case k == "text":
				if s, ok := v.(string); ok && strings.HasPrefix(s, "{") {
					var d map[string]any
					if json.Unmarshal([]byte(s), &d) == nil {
						delete(d, "durationMs")
						v = d
					}
				}
			}
			out[k] = v
		}
		return out
	})
}

// TestDuplicateIDOfADirectCallIsRefused: the SDK refuses a call whose id
// is in flight, but a direct call is not its own; the connection refuses
// the second one (with a null id, as the SDK does, so it is not taken for
// the first call's reply) and serves on.
func TestDuplicateIDOfADirectCallIsRefused(t *testing.T) {
	r, h := newRaw(t, setup{}, time.Second)
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_block","arguments":{}}}`)
	<-h.blockStarted
	r.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	f := r.reply(`null`)
	if errCode(t, f) != -32600 || !strings.Contains(string(f["error"]), "already in use") {
		t.Errorf("a second call with a direct call's id: %s; want -32600 naming the id in use", f["error"])
	}
	if f := r.await(100*time.Millisecond, func(f map[string]json.RawMessage) bool { return string(f["id"]) == `1` }); f != nil {
		t.Fatalf("the duplicate was answered with the first call's id: %v", f)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	<-h.blockEnded
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_fail","arguments":{}}}`)
	if f := r.reply(`2`); f["result"] == nil {
		t.Errorf("the next call after the refusal: %v", f)
	}
}

// TestCallBeforeInitializedNotificationIsAnswered: between the initialize
// reply and notifications/initialized a call is the SDK's to answer (it
// allows it), and it is answered.
func TestCallBeforeInitializedNotificationIsAnswered(t *testing.T) {
	r, _ := newRaw(t, setup{}, time.Second)
	r.handshake()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_fail","arguments":{}}}`)
	if f := r.reply(`1`); !strings.Contains(string(f["result"]), `"isError":true`) {
		t.Errorf("tools/call before notifications/initialized: %v", f)
	}
}

// TestDirectCallPanicIsAnInternalError: a panicking tool, called directly,
// is a logged -32603 and the session goes on.
func TestDirectCallPanicIsAnInternalError(t *testing.T) {
	r, h := newRaw(t, setup{}, time.Second)
	r.initialize()
	h.srv.view = nil // a bug: callTool dereferences it after the dispatch
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tool_search","arguments":{"query":"calendar"}}}`)
	if code := errCode(t, r.reply(`1`)); code != -32603 {
		t.Errorf("a panicking call: code %d, want -32603", code)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	r.reply(`2`)
}
