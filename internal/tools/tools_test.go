package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

// echoArgs is a test tool; real tools live in their own files.
type echoArgs struct {
	Text  string `json:"text"`
	Times int    `json:"times"`
}

const echoSchema = `{"type":"object","properties":{"text":{"type":"string"},"times":{"type":"integer","minimum":1}},"required":["text"],"additionalProperties":false}`

func echoTool(name string, exposure protocol.Exposure) Tool {
	return New(protocol.ToolDescriptor{Name: name, Description: "echo " + name, Parameters: json.RawMessage(echoSchema), Exposure: exposure},
		func(ctx context.Context, call Call, a echoArgs) protocol.ToolResult {
			return OK(strings.Repeat(a.Text, max(a.Times, 1)), map[string]any{"id": call.ID})
		})
}

func newTestRegistry(t *testing.T, tools ...Tool) *Registry {
	t.Helper()
	r := NewRegistry()
	if err := r.Register(protocol.SourceBuiltin, tools...); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name     string
		declared protocol.Mode
		want     protocol.Mode
	}{
		{"anything", protocol.ModeExternal, protocol.ModeExternal},
		{"bash", "", protocol.ModeLocal},
		{"read_file", "", protocol.ModeRead},
		{"write_file", "", protocol.ModeSafeWrite},
		{"web_fetch", "", protocol.ModeRead},
		{"web_post", "", protocol.ModeLocal}, // exact names only: no web_ prefix rule
		{"get_user", "", protocol.ModeRead},
		{"list_issues", "", protocol.ModeRead},
		{"search_docs", "", protocol.ModeRead},
		{"create_event", "", protocol.ModeSafeWrite},
		{"set_flag", "", protocol.ModeSafeWrite},
		{"delete_repo", "", protocol.ModeDestructive},
		{"drop_table", "", protocol.ModeDestructive},
		{"exec_query", "", protocol.ModeLocal},
		{"frobnicate", "", protocol.ModeLocal}, // fail safe
		{"getuser", "", protocol.ModeLocal},    // the prefix includes the underscore
	}
	for _, tt := range tests {
		if got := Classify(tt.name, tt.declared); got != tt.want {
			t.Errorf("Classify(%q, %q) = %q, want %q", tt.name, tt.declared, got, tt.want)
		}
	}
}

func TestRegisterRefusesBadDescriptors(t *testing.T) {
	bad := func(name, params string, mode protocol.Mode, exp protocol.Exposure) Tool {
		return New(protocol.ToolDescriptor{Name: name, Parameters: json.RawMessage(params), Mode: mode, Exposure: exp},
			func(context.Context, Call, struct{}) protocol.ToolResult { return OK("", nil) })
	}
	tests := []struct {
		tool Tool
		want string
	}{
		{bad("", `{}`, "", ""), "name"},
		{bad("has space", `{}`, "", ""), "invalid"},
		{bad("x", `[]`, "", ""), "must be a JSON object"},
		{bad("x", `{"type":"nonsense"}`, "", ""), "invalid parameters schema"},
		{bad("x", `{"$ref":"file:///etc/passwd"}`, "", ""), "not allowed"},
		{bad("x", ``, "", ""), "missing"},
		{bad("x", `{}`, "sudo", ""), "mode"},
		{bad("x", `{}`, "", "secret"), "exposure"},
	}
	for _, tt := range tests {
		err := NewRegistry().Register(protocol.SourceHost, tt.tool)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Register(%+v) error = %v, want it to mention %q", tt.tool.Descriptor(), err, tt.want)
		}
	}
}

func TestRegisterIsAllOrNothingAndNamesBothSources(t *testing.T) {
	r := newTestRegistry(t, echoTool("echo", ""))
	err := r.Register("plugin:p", echoTool("fresh", ""), echoTool("echo", ""))
	if err == nil || !strings.Contains(err.Error(), "builtin") || !strings.Contains(err.Error(), "plugin:p") {
		t.Fatalf("conflict error = %v", err)
	}
	if _, ok := r.Lookup("fresh"); ok {
		t.Error("half of a failed registration stayed registered")
	}
	if err := r.Register("host", echoTool("a", ""), echoTool("a", "")); err == nil {
		t.Error("duplicate name within one registration accepted")
	}
}

func TestSwapAndObservers(t *testing.T) {
	r := newTestRegistry(t)
	var mu sync.Mutex
	var changes []Change
	r.Observe(func(c Change) { mu.Lock(); changes = append(changes, c); mu.Unlock() })
	if err := r.Register("host", echoTool("a", ""), echoTool("b", "")); err != nil {
		t.Fatal(err)
	}
	if err := r.Swap("host", []string{"a", "b"}, []Tool{echoTool("b", ""), echoTool("c", "")}); err != nil {
		t.Fatal(err)
	}
	r.Unregister("c", "nope")
	if diff := cmp.Diff([]string{"b"}, r.Names("host")); diff != "" {
		t.Error(diff)
	}
	var got []string
	for _, c := range changes {
		var added []string
		for _, d := range c.Added {
			added = append(added, d.Name)
		}
		got = append(got, fmt.Sprintf("+%v -%v", added, c.Removed))
	}
	want := []string{"+[a b] -[]", "+[b c] -[a b]", "+[] -[c]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observed changes (-want +got):\n%s", diff)
	}
}

func TestList(t *testing.T) {
	r := newTestRegistry(t,
		echoTool("bash", ""), echoTool("read_file", ""), echoTool("zeta", ""),
		echoTool("deferred_one", protocol.ExposureDeferred), echoTool("secret", protocol.ExposureHidden),
		echoTool("ask_user", ""))
	names := func(p protocol.ToolListParams) []string {
		ds, err := r.List(p)
		if err != nil {
			t.Fatalf("List(%+v): %v", p, err)
		}
		out := []string{}
		for _, d := range ds {
			out = append(out, d.Name)
		}
		return out
	}
	tests := []struct {
		p    protocol.ToolListParams
		want []string
	}{
		{protocol.ToolListParams{}, []string{"ask_user", "bash", "deferred_one", "read_file", "secret", "zeta"}},
		{protocol.ToolListParams{View: "model"}, []string{"bash", "read_file", "zeta"}},
		{protocol.ToolListParams{View: "model", AskUser: true}, []string{"ask_user", "bash", "read_file", "zeta"}},
		{protocol.ToolListParams{View: "model", Strategy: "minimal"}, []string{"bash", "read_file"}},
		{protocol.ToolListParams{View: "model", Strategy: "minimal", AskUser: true}, []string{"ask_user", "bash", "read_file"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, names(tt.p)); diff != "" {
			t.Errorf("List(%+v) (-want +got):\n%s", tt.p, diff)
		}
	}
	_, err := r.List(protocol.ToolListParams{View: "model", Strategy: "progressive"})
	if !errors.Is(err, protocol.ErrPolicyDenied) || !strings.Contains(err.Error(), "tool_search") {
		t.Errorf("progressive without tool_search: %v", err)
	}
}

func TestSuggestSkipsHidden(t *testing.T) {
	r := newTestRegistry(t, echoTool("read_file", ""), echoTool("read_files_hidden", protocol.ExposureHidden),
		echoTool("write_file", ""), echoTool("deferred_read", protocol.ExposureDeferred), echoTool("zzz", ""))
	if diff := cmp.Diff([]string{"read_file", "write_file"}, r.Suggest("raed_file")); diff != "" {
		t.Error(diff)
	}
	if got := r.Suggest(strings.Repeat("x", 100000)); len(got) != 0 {
		t.Errorf("suggestions for a huge name: %v", got)
	}
}

func TestCallID(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := NewCallID()
		if len(id) != 25 || id[0] != 'c' || strings.Trim(id[1:], callIDAlphabet) != "" || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
}
