package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/plugins/mcptest"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func TestResultMapping(t *testing.T) {
	f := newFixture(t, "", func(o *Options) { o.MaxOutputBytes = 64 << 10 })
	f.load(t, testServer(t, "t"))
	cases := []struct {
		tool, args string
		check      func(t *testing.T, r protocol.ToolResult)
	}{
		{"fail", `{}`, func(t *testing.T, r protocol.ToolResult) {
			if r.Success || !r.NeedsFollowup || !strings.Contains(r.Error, "plugin tool fail reported an error: it failed on purpose") {
				t.Errorf("isError: %+v", r)
			}
		}},
		{"structured", `{}`, func(t *testing.T, r protocol.ToolResult) {
			got, _ := json.Marshal(r.Data["structured"])
			if string(got) != `{"answer":42,"unit":"none"}` || r.Message != `{"answer":42}` {
				t.Errorf("structured %s, message %q", got, r.Message)
			}
		}},
		{"media", `{}`, func(t *testing.T, r protocol.ToolResult) {
			blocks := r.Data["content"].([]map[string]any)
			want := []map[string]any{
				{"type": "text", "text": "here is a picture"},
				{"type": "image", "mimeType": "image/png", "bytes": len(mcptest.TinyPNG), "note": "image data is not shown"},
				{"type": "resource", "uri": "file:///notes.txt", "mimeType": "text/plain", "text": "resource text"},
				{"type": "resource_link", "uri": "https://example.com/doc", "name": "doc"},
			}
			if diff := cmp.Diff(want, blocks); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if !strings.Contains(r.Message, fmt.Sprintf("[image image/png, %d bytes, not shown]", len(mcptest.TinyPNG))) {
				t.Errorf("message %q", r.Message)
			}
		}},
		{"big", `{"bytes":1000000}`, func(t *testing.T, r protocol.ToolResult) {
			if !r.Success || r.Data["truncated"] != true || len(r.Message) > 64<<10 || !strings.Contains(r.Message, "bytes truncated]") {
				t.Errorf("1 MB of text: success %v truncated %v, message of %d bytes", r.Success, r.Data["truncated"], len(r.Message))
			}
		}},
		{"echo", `{"text":1}`, func(t *testing.T, r protocol.ToolResult) {
			if r.Success || !r.NeedsFollowup || !strings.Contains(r.Error, "invalid arguments for echo") {
				t.Errorf("bad arguments are refused by the sidecar's schema check: %+v", r)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			r := f.call(t, c.tool, c.args)
			if c.tool != "echo" && (r.Data["plugin"] != "t" || r.Data["tool"] != c.tool || r.Data["_sandbox"] == nil) {
				t.Errorf("data lacks plugin, tool or _sandbox: %v", r.Data)
			}
			c.check(t, r)
		})
	}
}

func TestCrashMidCallFailsThePlugin(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, "")
	f.load(t, testServer(t, "t"))
	res := f.call(t, "crash", `{}`)
	if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, `plugin.reload {"name":"t"}`) || !strings.Contains(res.Error, "exit status 7") {
		t.Fatalf("crash: %+v", res)
	}
	eventually(t, "the plugin to be marked failed", func() bool { return f.record(t, "t").State == protocol.PluginFailed })
	rec := f.record(t, "t")
	if len(rec.Tools) == 0 || !strings.Contains(rec.Error, "crashing on purpose") {
		t.Errorf("a failed plugin keeps its tools and says why (with its stderr): %+v", rec)
	}
	if res := f.call(t, "echo", `{"text":"x"}`); res.Success || !strings.Contains(res.Error, "plugin t failed") || !strings.Contains(res.Error, "plugin.reload") {
		t.Errorf("a tool of a failed plugin: %+v", res)
	}
	if c := f.m.Check(); c.Status != protocol.CheckError {
		t.Errorf("check %+v", c)
	}
	_, err := f.m.Enable(ctx, "t")
	lifecycleErr(t, err, protocol.CodePluginState, "reload it with plugin.reload")
	if rec, err := f.m.Reload(ctx, "t"); err != nil || rec.State != protocol.PluginEnabled || rec.Error != "" {
		t.Fatalf("reload of a failed plugin: %+v %v", rec, err)
	}
	if res := f.call(t, "echo", `{"text":"back"}`); res.Message != "back" {
		t.Errorf("after reload: %+v", res)
	}
}

func TestListChangedReregistersAtomically(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "t"))
	if res := f.call(t, "add_tool", `{"name":"newbie"}`); !res.Success {
		t.Fatal(res)
	}
	eventually(t, "newbie to be registered", func() bool { _, ok := f.reg.Lookup("newbie"); return ok })
	if e, _ := f.reg.Lookup("newbie"); e.Desc.Source != "plugin:t" || e.Desc.Mode != protocol.ModeRead {
		t.Errorf("newbie %+v", e.Desc)
	}
	if res := f.call(t, "newbie", `{}`); res.Message != "added tool newbie" {
		t.Errorf("newbie: %+v", res)
	}
	if !strings.Contains(strings.Join(f.record(t, "t").Tools, ","), "newbie") {
		t.Error("the record does not list newbie")
	}
	f.call(t, "remove_tool", `{"name":"newbie"}`)
	eventually(t, "newbie to be removed", func() bool { _, ok := f.reg.Lookup("newbie"); return !ok })

	// A changed list that conflicts is not applied; the old tools stay.
	f.reg.Register(protocol.SourceHost, tools.New(protocol.ToolDescriptor{Name: "clash", Parameters: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK("", nil) }))
	before := f.reg.Names("plugin:t")
	f.call(t, "add_tool", `{"name":"clash"}`)
	eventually(t, "the refresh error to be recorded", func() bool { return strings.Contains(f.record(t, "t").Error, "previous tools are kept") })
	if got := f.reg.Names("plugin:t"); !cmp.Equal(got, before) {
		t.Errorf("a refused refresh changed the tools: %v", got)
	}
}

func TestProgressBecomesToolProgress(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "t"))
	if res := f.call(t, "progress", `{"steps":3}`); res.Message != "done" {
		t.Fatal(res)
	}
	notes := f.host.progress()
	if len(notes) != 3 {
		t.Fatalf("progress notifications %+v, want 3", notes)
	}
	want := protocol.ToolProgressParams{CallID: "c1", Stream: "stderr", Chunk: "[progress 3/3] step 3\n"}
	if diff := cmp.Diff(want, notes[2]); diff != "" {
		t.Errorf("last progress (-want +got):\n%s", diff)
	}
}

func TestProgressFloodIsCoalesced(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "t"))
	start := time.Now()
	if res := f.call(t, "flood", `{"n":20000}`); res.Message != "flooded" {
		t.Fatal(res)
	}
	allowed := int(time.Since(start)/progressInterval) + 2
	if n := len(f.host.progress()); n > allowed {
		t.Errorf("%d tool.progress notifications for a %v call; at most %d expected", n, time.Since(start), allowed)
	}
	if res := f.call(t, "echo", `{"text":"after"}`); res.Message != "after" {
		t.Errorf("after the flood: %+v", res)
	}
}

func TestCancelReachesTheServer(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "t"))
	ctx, cancel := context.WithCancel(context.Background())
	d := tools.NewDispatcher(f.reg, nil, zerolog.Nop())
	done := make(chan protocol.ToolResult)
	go func() {
		done <- d.Dispatch(ctx, tools.Invocation{ToolCall: protocol.ToolCall{ID: "c", Name: "sleep", Arguments: json.RawMessage(`{"ms":60000}`)}})
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case res := <-done:
		if !strings.Contains(res.Error, "was cancelled") {
			t.Errorf("cancelled call: %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled call did not return")
	}
	eventually(t, "the server to log the cancellation", func() bool { return strings.Contains(f.log.String(), "sleep cancelled by the client") })
}

func TestHungCallTimesOutAndTheOthersKeepWorking(t *testing.T) {
	f := newFixture(t, "", func(o *Options) { o.CallTimeout = 300 * time.Millisecond })
	f.load(t, testServer(t, "t"))
	res := f.call(t, "hang", `{}`)
	if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "did not answer within 300 ms (STEERABLE_PLUGIN_CALL_TIMEOUT_MS)") {
		t.Fatalf("hang: %+v", res)
	}
	if res := f.call(t, "echo", `{"text":"alive"}`); res.Message != "alive" {
		t.Errorf("echo after a hung call: %+v", res)
	}
	if f.record(t, "t").State != protocol.PluginEnabled {
		t.Error("a hung call failed the plugin")
	}
}

func TestConcurrentCallsAndLifecycle(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "t"))
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			res := f.call(t, "echo", `{"text":"x"}`)
			// Success, or a clear follow-up while the plugin is reloading
			// or disabled: never a hang, a panic or a terminal error.
			if !res.Success && !res.NeedsFollowup {
				t.Errorf("call %d: %+v", i, res)
			}
		})
	}
	wg.Go(func() { f.m.Reload(ctx, "t") })
	wg.Go(func() { f.m.List(); f.m.Check() })
	wg.Wait()
	f.m.Disable(ctx, "t")
	f.m.Enable(ctx, "t")
	if res := f.call(t, "echo", `{"text":"end"}`); res.Message != "end" {
		t.Errorf("end: %+v", res)
	}
}
