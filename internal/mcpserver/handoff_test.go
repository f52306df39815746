package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestHandoffTake(t *testing.T) {
	h := newHandoff()
	held := []byte(`{"content":[{"type":"text","text":"hi"}]}`)
	ticket := h.hold(held)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"a result that is no ticket", `{"tools":[]}`, `{"tools":[]}`},
		{"an unknown ticket", ticketPrefix + `99}`, ticketPrefix + `99}`},
		{"a ticket without its brace", ticketPrefix + `1`, ticketPrefix + `1`},
		{"a ticket that is not a number", ticketPrefix + `"1"}`, ticketPrefix + `"1"}`},
		{"the ticket", string(ticket), string(held)},
		{"the ticket again: taken once", string(ticket), string(ticket)},
	}
	for _, tt := range tests {
		if got := string(h.take(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("%s: take(%s) = %s, want %s", tt.name, tt.in, got, tt.want)
		}
	}
	if n := h.pending(); n != 0 {
		t.Errorf("%d results still held", n)
	}
}

// TestHandoffWritesTheResultItself: over the stdio transport a tools/call
// reply carries the result, never the ticket, and the same result as the
// SDK's own encoding (the in-memory transport) gives.
func TestHandoffWritesTheResultItself(t *testing.T) {
	r, h := newRaw(t, setup{}, time.Second)
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_fail","arguments":{}}}`)
	f := r.reply(`1`)
	if strings.Contains(string(f["result"]), "handoff") {
		t.Fatalf("the ticket reached the client: %s", f["result"])
	}
	var got map[string]any
	if err := json.Unmarshal(f["result"], &got); err != nil {
		t.Fatal(err)
	}
	mem := newHarness(t, setup{})
	b, err := json.Marshal(mem.call("test_fail", map[string]any{}))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, ignoreDuration()); diff != "" {
		t.Errorf("handed-off result differs from the SDK's encoding (-sdk +handoff):\n%s", diff)
	}
	if n := h.srv.wire.pending(); n != 0 {
		t.Errorf("%d results still held after the reply", n)
	}
}

// TestHandoffReleasesACancelledResult: a cancelled call's reply is never
// written, and its result is not held forever either.
func TestHandoffReleasesACancelledResult(t *testing.T) {
	r, h := newRaw(t, setup{}, time.Second)
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"test_block","arguments":{}}}`)
	<-h.blockStarted
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`)
	<-h.blockEnded
	deadline := time.Now().Add(5 * time.Second)
	for h.srv.wire.pending() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d results still held 5s after the cancelled call ended", h.srv.wire.pending())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ignoreDuration drops data.durationMs, which differs between two runs,
// from structuredContent and its text rendering.
func ignoreDuration() cmp.Option {
	return cmp.Transformer("noDuration", func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			switch {
			case k == "durationMs":
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
