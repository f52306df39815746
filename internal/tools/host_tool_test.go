package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/protocol"
)

// fakeHost answers tool.invoke with reply (decoded as serve mode decodes a
// host's reply) and records what it was sent.
type fakeHost struct {
	NoHost
	reply func(ctx context.Context) (json.RawMessage, error)
	calls []protocol.ToolCall
}

func (h *fakeHost) InvokeTool(ctx context.Context, call protocol.ToolCall) (protocol.ToolResult, error) {
	h.calls = append(h.calls, call)
	raw, err := h.reply(ctx)
	if err != nil {
		return protocol.ToolResult{}, err
	}
	return DecodeToolResult(raw)
}

func replyWith(raw string) func(context.Context) (json.RawMessage, error) {
	return func(context.Context) (json.RawMessage, error) { return json.RawMessage(raw), nil }
}

func hostDesc(name string) protocol.ToolDescriptor {
	return protocol.ToolDescriptor{Name: name, Description: "host tool " + name, Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}}}`)}
}

func TestHostToolsRegister(t *testing.T) {
	r := newTestRegistry(t, echoTool("bash", ""))
	ht := NewHostTools(r, &fakeHost{})
	withMode := hostDesc("frobnicate")
	withMode.Mode, withMode.Exposure, withMode.Source = protocol.ModeExternal, protocol.ExposureDeferred, "plugin:liar"
	if n, err := ht.Register([]protocol.ToolDescriptor{hostDesc("create_event"), withMode}); err != nil || n != 2 {
		t.Fatalf("Register = %d, %v", n, err)
	}
	e, _ := r.Lookup("create_event")
	if e.Desc.Source != protocol.SourceHost || e.Desc.Mode != protocol.ModeSafeWrite || e.Desc.Exposure != protocol.ExposureDirect {
		t.Errorf("create_event resolved to %+v: want source host, mode classified by prefix, exposure direct", e.Desc)
	}
	e, _ = r.Lookup("frobnicate")
	if e.Desc.Source != protocol.SourceHost || e.Desc.Mode != protocol.ModeExternal || e.Desc.Exposure != protocol.ExposureDeferred {
		t.Errorf("frobnicate resolved to %+v: want declared mode and exposure, source host", e.Desc)
	}

	// Re-registering replaces the whole set.
	if _, err := ht.Register([]protocol.ToolDescriptor{hostDesc("frobnicate"), hostDesc("list_things")}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"frobnicate", "list_things"}, r.Names(protocol.SourceHost)); diff != "" {
		t.Errorf("after re-register (-want +got):\n%s", diff)
	}

	// Refused sets change nothing and say why.
	bad := hostDesc("broken")
	bad.Parameters = json.RawMessage(`{"type":"nonsense"}`)
	tests := []struct {
		descs []protocol.ToolDescriptor
		want  []string
	}{
		{[]protocol.ToolDescriptor{hostDesc("ok_tool"), hostDesc("bash")}, []string{`"bash"`, "builtin", "host"}},
		{[]protocol.ToolDescriptor{hostDesc("twice"), hostDesc("twice")}, []string{`"twice"`, "listed twice"}},
		{[]protocol.ToolDescriptor{hostDesc("ok_tool"), bad}, []string{`"broken"`, "invalid parameters schema"}},
		{[]protocol.ToolDescriptor{{Name: "bad name!", Parameters: json.RawMessage(`{}`)}}, []string{"bad name!", "invalid"}},
	}
	for _, tt := range tests {
		_, err := ht.Register(tt.descs)
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Register(%v) error = %v, want it to mention %s", tt.descs, err, w)
			}
		}
		if diff := cmp.Diff([]string{"frobnicate", "list_things"}, r.Names(protocol.SourceHost)); diff != "" {
			t.Fatalf("a refused set changed the registry (-want +got):\n%s", diff)
		}
	}

	// An empty set removes the host's tools.
	if n, err := ht.Register(nil); err != nil || n != 0 || len(r.Names(protocol.SourceHost)) != 0 {
		t.Errorf("Register(nil) = %d, %v; host tools left: %v", n, err, r.Names(protocol.SourceHost))
	}
}

func TestHostToolRun(t *testing.T) {
	tests := []struct {
		name  string
		reply func(context.Context) (json.RawMessage, error)
		check func(t *testing.T, res protocol.ToolResult)
	}{
		{"result passes through", replyWith(`{"success":true,"message":"done","data":{"n":12345678901234567890},"traceId":"t1"}`),
			func(t *testing.T, res protocol.ToolResult) {
				b, _ := json.Marshal(res)
				if !res.Success || res.Message != "done" || !strings.Contains(string(b), `"n":12345678901234567890`) || !strings.Contains(string(b), `"traceId":"t1"`) {
					t.Errorf("result = %s", b)
				}
			}},
		{"host's own failure is kept", replyWith(`{"success":false,"terminal":true,"error":"calendar down"}`),
			func(t *testing.T, res protocol.ToolResult) {
				if res.Success || !res.Terminal || res.Error != "calendar down" {
					t.Errorf("result = %+v", res)
				}
			}},
		{"error reply", func(context.Context) (json.RawMessage, error) {
			return nil, protocol.Errorf(-32000, "calendar is offline")
		}, wantFollowup("the host answered error -32000: calendar is offline")},
		{"garbage string", replyWith(`"garbage"`), wantFollowup("malformed result")},
		{"no success", replyWith(`{"ok":true}`), wantFollowup(`"success" is missing`)},
		{"success not a boolean", replyWith(`{"success":"yes"}`), wantFollowup("malformed result")},
		{"null", replyWith(`null`), wantFollowup("malformed result")},
		{"array", replyWith(`[1,2]`), wantFollowup("malformed result")},
		{"host gone", func(context.Context) (json.RawMessage, error) {
			return nil, fmt.Errorf("tool.invoke: %w", ErrHostGone)
		}, wantFollowup("not connected")},
		{"cancelled", func(ctx context.Context) (json.RawMessage, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, wantFollowup("cancelled")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host := &fakeHost{reply: tt.reply}
			r := NewRegistry()
			if _, err := NewHostTools(r, host).Register([]protocol.ToolDescriptor{hostDesc("create_event")}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tt.name == "cancelled" {
				cancel()
			}
			defer cancel()
			res := NewDispatcher(r, nil, zerolog.Nop()).Dispatch(ctx, Invocation{ToolCall: protocol.ToolCall{
				ID: "call_1", Name: "create_event", Arguments: json.RawMessage(`{"x":1}`)}})
			tt.check(t, res)
			want := []protocol.ToolCall{{ID: "call_1", Name: "create_event", Arguments: json.RawMessage(`{"x":1}`)}}
			if diff := cmp.Diff(want, host.calls); diff != "" {
				t.Errorf("reverse tool.invoke params (-want +got):\n%s", diff)
			}
		})
	}
}

func wantFollowup(substr string) func(*testing.T, protocol.ToolResult) {
	return func(t *testing.T, res protocol.ToolResult) {
		t.Helper()
		if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, substr) || !strings.Contains(res.Error, "create_event") {
			t.Errorf("result = %+v, want a follow-up error naming the tool and containing %q", res, substr)
		}
	}
}

// TestHostToolArgumentsValidated: a host tool's schema is enforced before
// the host is asked.
func TestHostToolArgumentsValidated(t *testing.T) {
	host := &fakeHost{reply: replyWith(`{"success":true}`)}
	r := NewRegistry()
	if _, err := NewHostTools(r, host).Register([]protocol.ToolDescriptor{hostDesc("create_event")}); err != nil {
		t.Fatal(err)
	}
	res := NewDispatcher(r, nil, zerolog.Nop()).Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{
		Name: "create_event", Arguments: json.RawMessage(`{"x":"one"}`)}})
	if res.Success || !strings.Contains(res.Error, "/x") || len(host.calls) != 0 {
		t.Errorf("result %+v after %d reverse calls", res, len(host.calls))
	}
}

// FuzzHostResult: whatever a host replies, the result is either its
// ToolResult (with a boolean success) or a malformed-result follow-up; never
// a panic.
func FuzzHostResult(f *testing.F) {
	for _, s := range []string{`{"success":true}`, `{"success":false,"error":"x","data":{"a":[1]}}`, `"garbage"`, `null`, `[]`, `{"success":1}`, `{`, `{"success":true,"data":"str"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		host := &fakeHost{reply: replyWith(raw)}
		res := (&hostTool{desc: hostDesc("t"), host: host}).Run(context.Background(), Call{ID: "c"})
		var probe struct {
			Success *bool `json:"success"`
		}
		valid := json.Unmarshal([]byte(raw), &probe) == nil && probe.Success != nil
		if !valid && (res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "malformed")) {
			t.Errorf("reply %q gave %+v, want a malformed-result follow-up", raw, res)
		}
	})
}
