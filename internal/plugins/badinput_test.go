package plugins

import (
	"context"
	"strings"
	"testing"
	"time"

	"steerable.dev/sidecar/protocol"
)

// Each misbehaving server ends in a clear, bounded result or a failed
// plugin with a message — never a hung sidecar — and a well-behaved plugin
// loaded beside it keeps working.
func TestBadServersFailLoudAndBounded(t *testing.T) {
	cases := []struct {
		name  string
		flags []string
		opts  func(*Options)
		want  string // in the load error; "" = loads
	}{
		// The good plugin beside it has the same start timeout: 2 s is short
		// for a test, long for a loaded machine to start a server.
		{"no-init", []string{"-raw", "no-init"}, func(o *Options) { o.StartTimeout = 2 * time.Second },
			"did not answer initialize and tools/list within 2000 ms (STEERABLE_PLUGIN_START_TIMEOUT_MS)"},
		{"slow-handshake", []string{"-slow-start", "10s"}, func(o *Options) { o.StartTimeout = 2 * time.Second },
			"did not answer initialize and tools/list within 2000 ms"},
		{"exit-at-start", []string{"-exit-at-start"}, nil,
			`exited during start-up (exit status 3); its stderr ends: "mcp-test-server: cannot open the database: permission denied"`},
		{"huge-list", []string{"-raw", "huge-list", "-tools", "5000"}, func(o *Options) { o.MaxTools = 1000 },
			"lists more than 1000 tools (STEERABLE_PLUGIN_MAX_TOOLS)"},
		{"huge-list-message", []string{"-raw", "huge-list", "-tools", "100000"}, func(o *Options) { o.MaxMessageBytes = 1 << 20 },
			"exceeds the sidecar's limit of 1048576 bytes for one plugin message (STEERABLE_PLUGIN_MAX_MESSAGE_BYTES)"},
		{"cursor-loop", []string{"-raw", "cursor-loop"}, nil, `tools/list pagination repeats the cursor "again"`},
		{"missing-command", nil, nil, "is not on the sidecar's PATH"},
		{"slow-but-in-time", []string{"-slow-start", "200ms"}, nil, ""},
		{"garbage-on-stdout", []string{"-garbage"}, nil, ""},
		{"stderr-flood", []string{"-stderr-flood", "20000000"}, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tweaks []func(*Options)
			if c.opts != nil {
				tweaks = append(tweaks, c.opts)
			}
			f := newFixture(t, "", tweaks...)
			bad := testServer(t, "bad", c.flags...)
			bad.ToolPrefix = "bad_"
			if c.name == "missing-command" {
				bad.Command = "no-such-mcp-server-anywhere"
			}
			start := time.Now()
			err := f.m.Load(context.Background(), specs{testServer(t, "good", "-read-file=false"), bad})
			took := time.Since(start)
			if c.want == "" {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				if res := f.call(t, "echo", `{"text":"ok"}`); res.Message != "ok" {
					t.Errorf("echo through %s: %+v", c.name, res)
				}
				return
			}
			lifecycleErr(t, err, protocol.CodePluginLoad, c.want)
			if rec := f.record(t, "bad"); rec.State != protocol.PluginFailed || len(rec.Tools) != 0 {
				t.Errorf("record %+v", rec)
			}
			if f.record(t, "good").State != protocol.PluginEnabled {
				t.Error("the good plugin did not load beside the bad one")
			}
			t.Logf("failed in %v: %v", took, err)
		})
	}
}

func TestGarbageOnStdoutIsLoggedNotFatal(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "g", "-garbage"))
	for range 3 {
		if res := f.call(t, "echo", `{"text":"through garbage"}`); res.Message != "through garbage" {
			t.Fatalf("echo: %+v", res)
		}
	}
	if !strings.Contains(f.log.String(), "not JSON-RPC; dropped") {
		t.Error("the garbage lines were not logged")
	}
}

func TestOversizedReplyIsAnsweredInTheServersPlace(t *testing.T) {
	for _, order := range []string{"id-first", "id-last"} {
		t.Run(order, func(t *testing.T) {
			f := newFixture(t, "", func(o *Options) { o.MaxMessageBytes = 1 << 20 })
			flags := []string{"-raw", "big", "-big-bytes", "104857600"}
			if order == "id-last" {
				flags = append(flags, "-id-last")
			}
			f.load(t, testServer(t, "big", flags...))
			res := f.call(t, "big", `{}`)
			if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "plugin tool big returned too much: reply of 10485") ||
				!strings.Contains(res.Error, "ask it for less") {
				t.Fatalf("100 MB reply: %+v", res)
			}
			if res := f.call(t, "small", `{}`); res.Message != "raw ok" {
				t.Errorf("the plugin stopped answering after an oversized reply: %+v", res)
			}
			if f.record(t, "big").State != protocol.PluginEnabled {
				t.Error("an oversized reply with an id failed the plugin")
			}
		})
	}
}

func TestOversizedMessageWithoutIDFailsThePlugin(t *testing.T) {
	f := newFixture(t, "", func(o *Options) { o.MaxMessageBytes = 1 << 20 })
	f.load(t, testServer(t, "noid", "-raw", "big-noid", "-big-bytes", "10485760"))
	res := f.call(t, "big", `{}`)
	if res.Success || !strings.Contains(res.Error, "over the limit of 1048576") || !strings.Contains(res.Error, "plugin.reload") {
		t.Fatalf("oversized message without an id: %+v", res)
	}
	eventually(t, "the plugin to fail", func() bool { return f.record(t, "noid").State == protocol.PluginFailed })
}

func TestNotificationFloodIsBounded(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "flood", "-raw", "flood"))
	// 100,000 log notifications arrive; calls are still answered.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if res := f.call(t, "small", `{}`); res.Message != "raw ok" {
			t.Fatalf("call during a flood: %+v", res)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(f.log.String(), "plugin notification dropped") {
		t.Error("no notification was dropped from a flood of 100,000")
	}
}
