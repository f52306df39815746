package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func TestLoadRegistersServerTools(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "t"))
	rec := f.record(t, "t")
	if rec.State != protocol.PluginEnabled || !rec.Reloadable || rec.Source != SourceInstalled {
		t.Fatalf("record %+v", rec)
	}
	modes := map[string]protocol.Mode{}
	var names []string
	for _, d := range f.reg.Descriptors() {
		if d.Source != "plugin:t" || d.Exposure != protocol.ExposureDeferred {
			t.Errorf("%s: source %q exposure %q", d.Name, d.Source, d.Exposure)
		}
		modes[d.Name] = d.Mode
		names = append(names, d.Name)
	}
	if diff := cmp.Diff(names, slices.Sorted(slices.Values(rec.Tools))); diff != "" {
		t.Errorf("record tools differ from the registry (-registry +record):\n%s", diff)
	}
	// Annotations set the mode; without any, the server's tool name is
	// classified (plain → local, remove_tool → destructive by prefix).
	want := map[string]protocol.Mode{"echo": "read", "plain": "local", "remove_thing": "destructive",
		"put_thing": "safe_write", "ask_world": "external", "remove_tool": "destructive", "add_tool": "safe_write"}
	for n, m := range want {
		if modes[n] != m {
			t.Errorf("mode of %s = %q, want %q", n, modes[n], m)
		}
	}
	res := f.call(t, "echo", `{"text":"hi"}`)
	if !res.Success || res.Message != "hi" {
		t.Errorf("echo: %+v", res)
	}
}

// lifecycleErr asserts err is a JSON-RPC error of code whose message has
// substr.
func lifecycleErr(t *testing.T, err error, code protocol.Code, substr string) {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != code || !strings.Contains(pe.Message, substr) {
		t.Fatalf("error %v, want code %d containing %q", err, code, substr)
	}
	if pe.Data["plugin"] == nil {
		t.Errorf("error data %v does not name the plugin", pe.Data)
	}
}

func TestLifecycleStateMachine(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, "")
	f.load(t, testServer(t, "t"))
	first := f.m.named("t", nil).srv

	_, err := f.m.Enable(ctx, "t")
	lifecycleErr(t, err, protocol.CodePluginState, "already enabled")

	rec, err := f.m.Disable(ctx, "t")
	if err != nil || rec.State != protocol.PluginDisabled || len(rec.Tools) != 0 {
		t.Fatalf("disable: %+v %v", rec, err)
	}
	if n := len(f.reg.Names("plugin:t")); n != 0 {
		t.Errorf("%d tools left after disable", n)
	}
	if why, _ := first.gone(); why == "" {
		t.Error("the server still runs after disable")
	}
	if res := f.call(t, "echo", `{"text":"x"}`); res.Success || !strings.Contains(res.Error, "unknown tool") {
		t.Errorf("a disabled plugin's tool answered %+v", res)
	}
	_, err = f.m.Disable(ctx, "t")
	lifecycleErr(t, err, protocol.CodePluginState, "already disabled")
	_, err = f.m.Reload(ctx, "t")
	lifecycleErr(t, err, protocol.CodePluginState, "enable it before reloading")

	rec, err = f.m.Enable(ctx, "t")
	if err != nil || rec.State != protocol.PluginEnabled || len(rec.Tools) == 0 {
		t.Fatalf("enable: %+v %v", rec, err)
	}
	second := f.m.named("t", nil).srv
	rec, err = f.m.Reload(ctx, "t")
	if err != nil || rec.State != protocol.PluginEnabled {
		t.Fatalf("reload: %+v %v", rec, err)
	}
	if third := f.m.named("t", nil).srv; third == second {
		t.Error("reload kept the same server")
	}
	if why, _ := second.gone(); why == "" {
		t.Error("reload left the old server running")
	}
	if res := f.call(t, "echo", `{"text":"after reload"}`); res.Message != "after reload" {
		t.Errorf("echo after reload: %+v", res)
	}

	rec, err = f.m.Unload(ctx, "t")
	if err != nil || rec.State != protocol.PluginUnloaded || len(rec.Tools) != 0 {
		t.Fatalf("unload: %+v %v", rec, err)
	}
	if len(f.m.List()) != 0 || len(f.reg.Names("plugin:t")) != 0 {
		t.Error("unload left the plugin or its tools")
	}
	for _, op := range []func(context.Context, string) (protocol.PluginRecord, error){f.m.Enable, f.m.Disable, f.m.Unload, f.m.Reload} {
		_, err := op(ctx, "t")
		lifecycleErr(t, err, protocol.CodePluginState, "unknown plugin")
	}
}

func TestUnloadDisabledPlugin(t *testing.T) {
	f := newFixture(t, "")
	s := testServer(t, "off")
	s.Disabled = true
	f.load(t, s)
	if rec := f.record(t, "off"); rec.State != protocol.PluginDisabled || len(rec.Tools) != 0 {
		t.Fatalf("a disabled manifest loaded as %+v", rec)
	}
	if rec, err := f.m.Unload(context.Background(), "off"); err != nil || rec.State != protocol.PluginUnloaded {
		t.Fatalf("unload of a disabled plugin: %+v %v", rec, err)
	}
}

func TestConflictFirstRegistrantWins(t *testing.T) {
	f := newFixture(t, "")
	builtin := tools.New(protocol.ToolDescriptor{Name: "read_file", Description: "built in", Parameters: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK("builtin", nil) })
	if err := f.reg.Register(protocol.SourceBuiltin, builtin); err != nil {
		t.Fatal(err)
	}
	err := f.m.Load(context.Background(), specs{testServer(t, "fs")})
	lifecycleErr(t, err, protocol.CodePluginLoad, `its tool "read_file" is already registered by builtin`)
	if !strings.Contains(err.Error(), `"toolPrefix" (e.g. "fs__")`) {
		t.Errorf("the conflict does not suggest a toolPrefix: %v", err)
	}
	if n := len(f.reg.Names("plugin:fs")); n != 0 {
		t.Errorf("a plugin that failed to load left %d tools (rollback)", n)
	}
	if rec := f.record(t, "fs"); rec.State != protocol.PluginFailed || len(rec.Tools) != 0 || !strings.Contains(rec.Error, "read_file") {
		t.Errorf("record %+v", rec)
	}
	if e, _ := f.reg.Lookup("read_file"); e.Desc.Source != protocol.SourceBuiltin {
		t.Error("the built-in lost its name")
	}

	prefixed := testServer(t, "fs2")
	prefixed.ToolPrefix = "fs__"
	f.load(t, prefixed)
	if res := f.call(t, "fs__read_file", `{"path":"x"}`); !res.Success || res.Message != "read" {
		t.Errorf("fs__read_file: %+v", res)
	}
}

func TestConflictBetweenPluginsNamesBoth(t *testing.T) {
	f := newFixture(t, "")
	err := f.m.Load(context.Background(), specs{testServer(t, "first"), testServer(t, "second")})
	lifecycleErr(t, err, protocol.CodePluginLoad, `plugin "second": its tool "add_tool" is already registered by plugin:first`)
	if f.record(t, "first").State != protocol.PluginEnabled || f.record(t, "second").State != protocol.PluginFailed {
		t.Errorf("records %+v", f.m.List())
	}
	if len(f.reg.Names("plugin:second")) != 0 {
		t.Error("the losing plugin registered tools")
	}
}

func TestDuplicatePluginNameIsAProblemNotARecord(t *testing.T) {
	f := newFixture(t, "")
	a, b := testServer(t, "same"), testServer(t, "same")
	b.Origin = "elsewhere"
	err := f.m.Load(context.Background(), specs{a}, specs{b})
	lifecycleErr(t, err, protocol.CodePluginLoad, "already loaded from test")
	if n := len(f.m.List()); n != 1 {
		t.Errorf("%d records for one name", n)
	}
	if c := f.m.Check(); c.Status != protocol.CheckError || !strings.Contains(c.Message, "already loaded") {
		t.Errorf("check %+v", c)
	}
}

func TestInvalidSchemaFailsTheLoadNamed(t *testing.T) {
	f := newFixture(t, "")
	err := f.m.Load(context.Background(), specs{testServer(t, "bad", "-invalid-schema")})
	lifecycleErr(t, err, protocol.CodePluginLoad, `tool "broken": invalid parameters schema`)
	if n := len(f.reg.Names("plugin:bad")); n != 0 {
		t.Errorf("%d tools registered by a plugin with an invalid schema (none expected)", n)
	}
}

func TestReloadFailureKeepsTheOldTools(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, "")
	flag := filepath.Join(t.TempDir(), "flag")
	f.load(t, testServer(t, "t", "-add-if", flag+"=late", "-exit-if", flag+".exit"))
	before := f.record(t, "t").Tools

	// A new process that cannot start: the old one keeps serving.
	os.WriteFile(flag+".exit", nil, 0o644)
	_, err := f.m.Reload(ctx, "t")
	lifecycleErr(t, err, protocol.CodePluginLoad, "refusing to start again")
	rec := f.record(t, "t")
	if rec.State != protocol.PluginEnabled || !slices.Equal(rec.Tools, before) || !strings.Contains(rec.Error, "previous tools are kept") {
		t.Errorf("after a failed reload: %+v", rec)
	}
	if res := f.call(t, "echo", `{"text":"still"}`); res.Message != "still" {
		t.Errorf("the old server stopped answering: %+v", res)
	}

	// A new process whose tools conflict: rolled back, never a mix.
	os.Remove(flag + ".exit")
	os.WriteFile(flag, nil, 0o644)
	host := tools.New(protocol.ToolDescriptor{Name: "late", Parameters: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK("host", nil) })
	if err := f.reg.Register(protocol.SourceHost, host); err != nil {
		t.Fatal(err)
	}
	_, err = f.m.Reload(ctx, "t")
	lifecycleErr(t, err, protocol.CodePluginLoad, `its tool "late" is already registered by host`)
	if got := f.reg.Names("plugin:t"); !slices.Equal(got, slices.Sorted(slices.Values(before))) {
		t.Errorf("tools after a rolled-back reload: %v, want the old %v", got, before)
	}
	if res := f.call(t, "echo", `{"text":"old"}`); res.Message != "old" {
		t.Errorf("the old server stopped answering after the rollback: %+v", res)
	}
}

func TestCompiledInPlugin(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, "")
	greet := func(prefix string) tools.Tool {
		type args struct {
			Name string `json:"name"`
		}
		return tools.New(protocol.ToolDescriptor{Name: "greet", Description: "Greet by name",
			Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
			func(_ context.Context, _ tools.Call, a args) protocol.ToolResult { return tools.OK(prefix+a.Name, nil) })
	}
	src := CompiledIn{{Name: "greeter", ToolPrefix: "g_", Register: func(r Router) error { return r.Register(greet("hello ")) }}}
	if err := f.m.Load(ctx, src); err != nil {
		t.Fatal(err)
	}
	rec := f.record(t, "greeter")
	want := protocol.PluginRecord{Name: "greeter", Source: SourceCompiled, Origin: SourceCompiled, State: protocol.PluginEnabled,
		Tools: []string{"g_greet"}, Sandbox: protocol.PluginSandbox{Backend: "in-process", Enforcement: "none", Network: true, Writable: []string{}}}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if e, _ := f.reg.Lookup("g_greet"); e.Desc.Exposure != protocol.ExposureDeferred || e.Desc.Source != "plugin:greeter" {
		t.Errorf("descriptor %+v", e.Desc)
	}
	if res := f.call(t, "g_greet", `{"name":"Ada"}`); res.Message != "hello Ada" {
		t.Errorf("greet: %+v", res)
	}
	_, err := f.m.Reload(ctx, "greeter")
	lifecycleErr(t, err, protocol.CodePluginState, "compiled in and cannot be reloaded")
	if _, err := f.m.Disable(ctx, "greeter"); err != nil || f.reg.Len() != 0 {
		t.Fatalf("disable: %v, %d tools left", err, f.reg.Len())
	}
	if rec, err := f.m.Enable(ctx, "greeter"); err != nil || len(rec.Tools) != 1 {
		t.Fatalf("enable re-runs Register: %+v %v", rec, err)
	}
}

func TestCompiledRegistrationFailingMidwayRollsBack(t *testing.T) {
	f := newFixture(t, "")
	tool := func(name string) tools.Tool {
		return tools.New(protocol.ToolDescriptor{Name: name, Parameters: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK(name, nil) })
	}
	f.reg.Register(protocol.SourceBuiltin, tool("taken"))
	cases := []struct {
		name     string
		register func(Router) error
		want     string
	}{
		{"conflict", func(r Router) error {
			if err := r.Register(tool("a"), tool("b")); err != nil {
				return err
			}
			return r.Register(tool("taken"))
		}, `its tool "taken" is already registered by builtin`},
		{"error", func(r Router) error {
			r.Register(tool("c"))
			return errors.New("the database is gone")
		}, "its Register failed, nothing was registered: the database is gone"},
		{"panic", func(r Router) error {
			r.Register(tool("d"))
			panic("boom")
		}, "its Register panicked"},
		{"twice", func(r Router) error { return r.Register(tool("e"), tool("e")) }, `lists the tool "e" twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := f.m.Load(context.Background(), CompiledIn{{Name: c.name, Register: c.register}})
			lifecycleErr(t, err, protocol.CodePluginLoad, c.want)
			if got := f.reg.Names("plugin:" + c.name); len(got) != 0 {
				t.Errorf("left %v registered", got)
			}
		})
	}
	if f.reg.Len() != 1 {
		t.Errorf("registry holds %d tools, want only the built-in", f.reg.Len())
	}
}

func TestInvalidSpecFailsUnderItsName(t *testing.T) {
	f := newFixture(t, "")
	s := Spec{Name: "broken", Source: SourceDirectory, Origin: "/plugins/broken.json", Invalid: errors.New(`"command" is missing`)}
	err := f.m.Load(context.Background(), specs{s})
	lifecycleErr(t, err, protocol.CodePluginLoad, `plugin "broken": "command" is missing`)
	if rec := f.record(t, "broken"); rec.State != protocol.PluginFailed {
		t.Errorf("record %+v", rec)
	}
}

func TestCheckReportsEachPlugin(t *testing.T) {
	f := newFixture(t, "")
	f.m.Load(context.Background(), specs{testServer(t, "a"), Spec{Name: "gone", Source: SourceInstalled, Origin: "x", Invalid: errors.New("bad")}})
	c := f.m.Check()
	for _, want := range []string{"1 enabled: a (", "failed: gone: plugin \"gone\": bad", "unsandboxed: a (no sandbox backend works here)"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("check message %q lacks %q", c.Message, want)
		}
	}
	if c.Status != protocol.CheckError {
		t.Errorf("status %s, want error", c.Status)
	}
}

// tools/list is read page by page: a server with a small page size has
// every tool registered, in the order it lists them.
func TestPaginatedListRegistersEveryPage(t *testing.T) {
	f := newFixture(t, "")
	whole := testServer(t, "whole", "-read-file=false", "-tools", "25")
	paged := testServer(t, "paged", "-read-file=false", "-tools", "25", "-page", "4")
	paged.ToolPrefix = "p_"
	f.load(t, whole, paged)
	want := []string{}
	for _, n := range f.record(t, "whole").Tools {
		want = append(want, "p_"+n)
	}
	got := f.record(t, "paged").Tools
	if len(got) < 40 {
		t.Fatalf("%d tools registered from the paged server, want all of them: %v", len(got), got)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paged registration differs from the single page (-whole +paged):\n%s", diff)
	}
	if res := f.call(t, "p_gen_24", `{"id":"x"}`); !res.Success {
		t.Errorf("a tool from the last page: %+v", res)
	}
}
