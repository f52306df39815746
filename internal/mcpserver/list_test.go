package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func TestInitializeNegotiatesTheClientsVersion(t *testing.T) {
	h := newHarness(t, setup{})
	init := h.cs.InitializeResult()
	if init.ProtocolVersion < "2025-06-18" {
		t.Errorf("negotiated %q, want 2025-06-18 or newer", init.ProtocolVersion)
	}
	if init.ServerInfo.Name != "steerable-sidecar" || init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
		t.Errorf("serverInfo %+v, tools capability %+v; want steerable-sidecar with tools.listChanged", init.ServerInfo, init.Capabilities.Tools)
	}
}

func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestToolsListIsTheModelView(t *testing.T) {
	full := []string{"apply_patch", "edit_file", "exec_thing", "glob", "grep", "notebook_edit", "read_file", "test_block", "test_fail", "test_progress",
		"test_reverse", "test_sleep", "tool_search", "write_file"}
	for _, tc := range []struct {
		name  string
		setup setup
		want  []string
	}{
		{"full: direct tools, no ask_user without elicitation", setup{}, full},
		{"minimal: the file tools registered", setup{strategy: "minimal"}, []string{"edit_file", "read_file", "write_file"}},
		{"progressive: direct plus tool_search", setup{strategy: "progressive"}, full},
		{"ask_user offered to a client that can elicit", setup{client: mcp.ClientOptions{ElicitationHandler: acceptAll}},
			append([]string{"ask_user"}, full...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.setup)
			got := listNames(t, h.cs)
			slices.Sort(tc.want)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("tools/list (-want +got):\n%s", d)
			}
		})
	}
}

func acceptAll(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
}

func TestToolsListAnnotationsFromModes(t *testing.T) {
	h := newHarness(t, setup{})
	res, err := h.cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct {
		Title                   string
		ReadOnly                bool
		Destructive, OpenWorld  *bool
		Mode, InputSchemaObject string
	}
	got := map[string]hints{}
	for _, tl := range res.Tools {
		schema, _ := json.Marshal(tl.InputSchema)
		var s struct{ Type string }
		json.Unmarshal(schema, &s)
		a := tl.Annotations
		got[tl.Name] = hints{tl.Title, a.ReadOnlyHint, a.DestructiveHint, a.OpenWorldHint, tl.Meta[metaMode].(string), s.Type}
		if a.IdempotentHint {
			t.Errorf("%s: idempotentHint set; no mode implies it", tl.Name)
		}
	}
	f, tr := boolPtr(false), boolPtr(true)
	want := map[string]hints{
		"read_file":   {"Read file", true, nil, f, "read", "object"},
		"write_file":  {"Write file", false, f, f, "safe_write", "object"},
		"tool_search": {"Find more tools", true, nil, f, "read", "object"},
		"exec_thing":  {"Exec thing", false, tr, f, "local", "object"},
	}
	for name, w := range want {
		if d := cmp.Diff(w, got[name]); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

func TestAnnotationsTable(t *testing.T) {
	f, tr := boolPtr(false), boolPtr(true)
	for _, tc := range []struct {
		desc         protocol.ToolDescriptor
		localNetwork bool
		want         mcp.ToolAnnotations
	}{
		{protocol.ToolDescriptor{Name: "read_file", Mode: protocol.ModeRead, Source: "builtin"}, false,
			mcp.ToolAnnotations{Title: "Read file", ReadOnlyHint: true, OpenWorldHint: f}},
		{protocol.ToolDescriptor{Name: "web_fetch", Mode: protocol.ModeRead, Source: "builtin"}, false,
			mcp.ToolAnnotations{Title: "Fetch web page", ReadOnlyHint: true, OpenWorldHint: tr}},
		{protocol.ToolDescriptor{Name: "web_fetch", Mode: protocol.ModeRead, Source: "host"}, false,
			mcp.ToolAnnotations{Title: "Web fetch", ReadOnlyHint: true, OpenWorldHint: f}},
		{protocol.ToolDescriptor{Name: "edit_file", Mode: protocol.ModeSafeWrite, Source: "builtin"}, false,
			mcp.ToolAnnotations{Title: "Edit file", DestructiveHint: f, OpenWorldHint: f}},
		{protocol.ToolDescriptor{Name: "delete_user", Mode: protocol.ModeDestructive, Source: "host"}, false,
			mcp.ToolAnnotations{Title: "Delete user", DestructiveHint: tr, OpenWorldHint: f}},
		{protocol.ToolDescriptor{Name: "bash", Mode: protocol.ModeLocal, Source: "builtin"}, false,
			mcp.ToolAnnotations{Title: "Run shell command (sandboxed)", DestructiveHint: tr, OpenWorldHint: f}},
		{protocol.ToolDescriptor{Name: "bash", Mode: protocol.ModeLocal, Source: "builtin"}, true,
			mcp.ToolAnnotations{Title: "Run shell command (sandboxed)", DestructiveHint: tr, OpenWorldHint: tr}},
		{protocol.ToolDescriptor{Name: "sendEmail", Mode: protocol.ModeExternal, Source: "plugin:mail"}, false,
			mcp.ToolAnnotations{Title: "Send email", DestructiveHint: tr, OpenWorldHint: tr}},
		{protocol.ToolDescriptor{Name: "x", Mode: "future", Source: "host"}, false,
			mcp.ToolAnnotations{Title: "X", DestructiveHint: tr, OpenWorldHint: tr}},
	} {
		got := annotations(tc.desc, titleOf(tc.desc), tc.localNetwork)
		if d := cmp.Diff(tc.want, *got); d != "" {
			t.Errorf("%s/%s (-want +got):\n%s", tc.desc.Name, tc.desc.Mode, d)
		}
	}
}

func TestHumanize(t *testing.T) {
	for in, want := range map[string]string{
		"create_pull_request": "Create pull request",
		"createPullRequest":   "Create pull request",
		"HTTPServerStart":     "Http server start",
		"github:list-issues":  "Github list issues",
		"_":                   "_",
		"ü_x":                 "Ü x",
	} {
		if got := humanize(in); got != want {
			t.Errorf("humanize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInputSchema(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`{"type":"object","properties":{}}`, `{"type":"object","properties":{}}`, true},
		{`{"properties":{"a":{"type":"string"}}}`, `{"properties":{"a":{"type":"string"}},"type":"object"}`, true},
		{`{}`, `{"type":"object"}`, true},
		{`{"type":"array"}`, ``, false},
		{`true`, ``, false},
		{`[]`, ``, false},
		{`null`, ``, false},
	} {
		got, ok := inputSchema(json.RawMessage(tc.in))
		if ok != tc.ok || (ok && string(got) != tc.want) {
			t.Errorf("inputSchema(%s) = %s, %v; want %s, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// listChanges counts notifications/tools/list_changed.
func listChanges() (mcp.ClientOptions, chan struct{}) {
	ch := make(chan struct{}, 16)
	return mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} }}, ch
}

func awaitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
	}
}

func TestToolSearchUnlocksMatches(t *testing.T) {
	opts, changed := listChanges()
	h := newHarness(t, setup{strategy: "progressive", client: opts})
	if slices.Contains(listNames(t, h.cs), "create_calendar_event") {
		t.Fatal("a deferred tool is listed before any search")
	}
	res := h.call("tool_search", map[string]any{"query": "calendar event"})
	if res.IsError {
		t.Fatalf("tool_search failed: %s", text(res, 0))
	}
	awaitSignal(t, changed, "notifications/tools/list_changed after the search")
	if !slices.Contains(listNames(t, h.cs), "create_calendar_event") {
		t.Fatal("the match is not listed after the search")
	}
	if res := h.call("create_calendar_event", map[string]any{}); res.IsError || text(res, 0) != "event created" {
		t.Errorf("calling the match: %+v", res)
	}
	// The same search again unlocks nothing new: no notification.
	h.call("tool_search", map[string]any{"query": "calendar event"})
	select {
	case <-changed:
		t.Error("list_changed for a search that unlocked nothing new")
	case <-time.After(100 * time.Millisecond):
	}
}

func TestMinimalStrategyDoesNotUnlock(t *testing.T) {
	h := newHarness(t, setup{strategy: "minimal"})
	h.call("tool_search", map[string]any{"query": "calendar event"}) // callable, not offered
	if slices.Contains(listNames(t, h.cs), "create_calendar_event") {
		t.Error("minimal lists a tool_search match")
	}
}

func TestRegistryChangesNotify(t *testing.T) {
	opts, changed := listChanges()
	h := newHarness(t, setup{client: opts})
	listNames(t, h.cs)
	added := tools.New(protocol.ToolDescriptor{Name: "get_weather", Description: "weather",
		Parameters: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK("sunny", nil) })
	if err := h.reg.Register(protocol.SourceHost, added); err != nil {
		t.Fatal(err)
	}
	awaitSignal(t, changed, "list_changed after a registration")
	if !slices.Contains(listNames(t, h.cs), "get_weather") {
		t.Error("the new tool is not listed")
	}
	h.reg.Unregister("get_weather")
	awaitSignal(t, changed, "list_changed after an unregistration")
	// A deferred tool changes nothing the client sees.
	deferred := tools.New(protocol.ToolDescriptor{Name: "get_tide", Description: "tide", Exposure: protocol.ExposureDeferred,
		Parameters: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK("low", nil) })
	listNames(t, h.cs)
	if err := h.reg.Register(protocol.SourceHost, deferred); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
		t.Error("list_changed for a deferred tool nobody unlocked")
	case <-time.After(100 * time.Millisecond):
	}
}

func TestBadSchemaIsLeftOutNotFatal(t *testing.T) {
	h := newHarness(t, setup{})
	bad := tools.New(protocol.ToolDescriptor{Name: "get_list", Description: "array schema",
		Parameters: json.RawMessage(`{"type":"array"}`)},
		func(context.Context, tools.Call, struct{}) protocol.ToolResult { return tools.OK("", nil) })
	if err := h.reg.Register(protocol.SourceHost, bad); err != nil {
		t.Fatal(err)
	}
	names := listNames(t, h.cs)
	if slices.Contains(names, "get_list") || !slices.Contains(names, "read_file") {
		t.Errorf("tools/list = %v; want the others without get_list", names)
	}
}

func TestCursorIsRefused(t *testing.T) {
	h := newHarness(t, setup{})
	_, err := h.cs.ListTools(testCtx(t), &mcp.ListToolsParams{Cursor: "x"})
	if err == nil {
		t.Fatal("a cursor this server never issued was accepted")
	}
}

// TestEveryBuiltinHasATitle: a built-in added later gets its display name
// here, not a humanized fallback.
func TestEveryBuiltinHasATitle(t *testing.T) {
	h := newHarness(t, setup{client: mcp.ClientOptions{ElicitationHandler: acceptAll}})
	res, err := h.cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	testOnly := map[string]bool{}
	for _, tool := range h.testTools() {
		testOnly[tool.Descriptor().Name] = true
	}
	for _, tl := range res.Tools {
		if tl.Meta[metaSource] != protocol.SourceBuiltin || testOnly[tl.Name] {
			continue
		}
		if _, ok := builtinTitles[tl.Name]; !ok {
			t.Errorf("built-in %s has no entry in builtinTitles (its title would be %q)", tl.Name, tl.Title)
		}
	}
}

// TestReadBeforeWriteIsSaidOnce: the one-shot note is in read_file's
// description and in no other listed tool's.
func TestReadBeforeWriteIsSaidOnce(t *testing.T) {
	h := newHarness(t, setup{client: mcp.ClientOptions{ElicitationHandler: acceptAll}})
	res, err := h.cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var with []string
	for _, tl := range res.Tools {
		if n := strings.Count(tl.Description, "STEERABLE_REQUIRE_READ_BEFORE_WRITE=0"); n > 0 {
			with = append(with, fmt.Sprintf("%s×%d", tl.Name, n))
		}
	}
	if len(with) != 1 || with[0] != "read_file×1" {
		t.Errorf("the one-shot note is in %v; want it once, in read_file", with)
	}
}
