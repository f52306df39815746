package protocol_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/protocol"
)

// wireTypes pairs every schema file with the Go type it describes.
var wireTypes = []struct {
	file string
	typ  any
	open bool // schema allows unknown keys; the Go type keeps them
}{
	{"toolcall.json", protocol.ToolCall{}, false},
	{"toolresult.json", protocol.ToolResult{}, true},
	{"tooldescriptor.json", protocol.ToolDescriptor{}, false},
	{"health.json", protocol.Health{}, false},
	{"error.json", protocol.WireError{}, false},
	{"tool.list.params.json", protocol.ToolListParams{}, false},
	{"tool.list.result.json", []protocol.ToolDescriptor{}, false},
	{"tool.invoke.params.json", protocol.ToolInvokeParams{}, false},
	{"read_state.seed.params.json", protocol.ReadStateSeedParams{}, false},
	{"read_state.seed.result.json", protocol.ReadStateSeedResult{}, false},
	{"read_state.get.result.json", protocol.ReadStateGetResult{}, false},
	{"host_tools.register.params.json", protocol.HostToolsRegisterParams{}, false},
	{"host_tools.register.result.json", protocol.HostToolsRegisterResult{}, false},
	{"plugin.params.json", protocol.PluginParams{}, false},
	{"plugin.record.json", protocol.PluginRecord{}, false},
	{"plugin.list.result.json", protocol.PluginListResult{}, false},
	{"plugin.result.json", protocol.PluginResult{}, false},
	{"session.record.json", protocol.SessionRecord{}, false},
	{"session.list.result.json", protocol.SessionListResult{}, false},
	{"session.close.params.json", protocol.SessionCloseParams{}, false},
	{"session.close.result.json", protocol.SessionCloseResult{}, false},
	{"cancel.params.json", protocol.CancelParams{}, false},
	{"ask_user.request.params.json", protocol.AskUserRequestParams{}, false},
	{"ask_user.request.result.json", protocol.AskUserRequestResult{}, false},
	{"approval.request.params.json", protocol.ApprovalRequestParams{}, false},
	{"approval.request.result.json", protocol.ApprovalRequestResult{}, false},
	{"web_search.request.params.json", protocol.WebSearchRequestParams{}, false},
	{"web_search.request.result.json", protocol.WebSearchRequestResult{}, false},
	{"tool.progress.params.json", protocol.ToolProgressParams{}, false},
	{"todo.item.json", protocol.TodoItem{}, false},
	{"todo.list.params.json", protocol.TodoListParams{}, false},
	{"todo.list.result.json", protocol.TodoListResult{}, false},
	{"todo.updated.params.json", protocol.TodoUpdatedParams{}, false},
	{"checkpoint.create.params.json", protocol.CheckpointCreateParams{}, false},
	{"checkpoint.record.json", protocol.CheckpointInfo{}, false},
	{"checkpoint.list.result.json", protocol.CheckpointListResult{}, false},
	{"checkpoint.diff.params.json", protocol.CheckpointDiffParams{}, false},
	{"checkpoint.diff.result.json", protocol.CheckpointDiffResult{}, false},
	{"checkpoint.restore.params.json", protocol.CheckpointRestoreParams{}, false},
	{"tool.undo.params.json", protocol.ToolUndoParams{}, false},
	{"restore.result.json", protocol.RestoreResult{}, false},
	{"lifecycle.ready.params.json", protocol.LifecycleReadyParams{}, false},
	{"lifecycle.shutdown.params.json", protocol.LifecycleShutdownParams{}, false},
}

func loadRaw(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := protocol.Schemas.ReadFile("schema/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}

func decodeAny(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSchemasRoundTrip sends every schema example through the Go type and
// back, checking both sides against the schema: a field the Go type drops,
// renames or adds shows up as a diff or a validation error.
func TestSchemasRoundTrip(t *testing.T) {
	var set schema.Set
	files := protocol.SchemaNames()
	if len(files) != len(wireTypes) {
		t.Errorf("%d schema files but %d wire types: every file needs a Go type", len(files), len(wireTypes))
	}
	for _, wt := range wireTypes {
		t.Run(wt.file, func(t *testing.T) {
			sch, err := set.Get(wt.file)
			if err != nil {
				t.Fatal(err)
			}
			examples, _ := loadRaw(t, wt.file)["examples"].([]any)
			if len(examples) == 0 {
				t.Fatal("schema has no examples")
			}
			for i, ex := range examples {
				in, _ := json.Marshal(ex)
				if err := sch.Validate(decodeAny(t, in)); err != nil {
					t.Fatalf("example %d invalid: %v", i, err)
				}
				ptr := reflect.New(reflect.TypeOf(wt.typ))
				dec := json.NewDecoder(bytes.NewReader(in))
				if !wt.open {
					dec.DisallowUnknownFields()
				}
				if err := dec.Decode(ptr.Interface()); err != nil {
					t.Fatalf("example %d does not decode into %T: %v", i, wt.typ, err)
				}
				out, err := json.Marshal(ptr.Interface())
				if err != nil {
					t.Fatal(err)
				}
				if err := sch.Validate(decodeAny(t, out)); err != nil {
					t.Errorf("example %d after round trip invalid: %v\n%s", i, err, out)
				}
				if diff := cmp.Diff(decodeAny(t, in), decodeAny(t, out)); diff != "" {
					t.Errorf("example %d changed in round trip (-in +out):\n%s", i, diff)
				}
			}
		})
	}
}

// TestSchemaFieldsMatchGoTypes compares, recursively, the JSON field names of
// each Go struct with the properties of its schema, in both directions.
func TestSchemaFieldsMatchGoTypes(t *testing.T) {
	for _, wt := range wireTypes {
		t.Run(wt.file, func(t *testing.T) {
			compareFields(t, wt.file, loadRaw(t, wt.file), reflect.TypeOf(wt.typ), wt.file)
		})
	}
}

func compareFields(t *testing.T, file string, sch map[string]any, typ reflect.Type, where string) {
	t.Helper()
	sch = resolve(t, file, sch)
	for typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		key := "items"
		if typ.Kind() == reflect.Map {
			key = "additionalProperties"
		}
		if typ == reflect.TypeOf(json.RawMessage{}) || typ.Elem().Kind() == reflect.Interface {
			return
		}
		next, ok := sch[key].(map[string]any)
		if !ok {
			return
		}
		sch, typ = resolve(t, file, next), typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return
	}
	props, _ := sch["properties"].(map[string]any)
	goFields := map[string]reflect.Type{}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "-" || !f.IsExported() {
			continue
		}
		goFields[name] = f.Type
	}
	var missing, extra []string
	for name, ft := range goFields {
		p, ok := props[name].(map[string]any)
		if !ok {
			missing = append(missing, name)
			continue
		}
		compareFields(t, file, p, ft, where+"."+name)
	}
	for name := range props {
		if _, ok := goFields[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("%s: Go fields %v are not in the schema", where, missing)
	}
	if len(extra) > 0 {
		t.Errorf("%s: schema properties %v have no Go field", where, extra)
	}
}

// resolve follows a $ref to another embedded file or to #/$defs/x.
func resolve(t *testing.T, file string, sch map[string]any) map[string]any {
	t.Helper()
	ref, ok := sch["$ref"].(string)
	if !ok {
		return sch
	}
	target, frag, _ := strings.Cut(ref, "#")
	doc := loadRaw(t, file)
	if target != "" {
		doc = loadRaw(t, target)
	}
	if frag != "" {
		for _, part := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			doc, _ = doc[part].(map[string]any)
		}
	}
	return doc
}

func TestIsTerminal(t *testing.T) {
	tests := []struct {
		r    protocol.ToolResult
		want bool
	}{
		{protocol.ToolResult{Success: true}, false},
		{protocol.ToolResult{Success: true, Terminal: true}, true},
		{protocol.ToolResult{Success: false}, true},
		{protocol.ToolResult{Success: false, NeedsFollowup: true}, false},
		{protocol.ToolResult{Success: false, NeedsFollowup: true, Terminal: true}, true},
	}
	for _, tt := range tests {
		if got := protocol.IsTerminal(tt.r); got != tt.want {
			t.Errorf("IsTerminal(%+v) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

// TestToolResultKeepsUnknownFields: unknown members, and content in a
// shape this version does not know, pass through a round trip unchanged;
// known content blocks are read into Content.
func TestToolResultKeepsUnknownFields(t *testing.T) {
	var r protocol.ToolResult
	for _, in := range []string{
		`{"success":false,"needsFollowup":true,"error":"x","data":{"n":12345678901234567890},"traceId":"t1","extra":{"a":[1]}}`,
		`{"success":true,"content":[{"type":"resource","resource":{"uri":"file:///a","text":"x"}}]}`,
		`{"success":true,"content":[{"type":"text","text":"x","annotations":{"audience":["user"]}}]}`,
		`{"success":true,"content":"plain"}`,
		`{"success":true,"content":[]}`,
		`{"success":true,"content":[{"type":"text","text":"a"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]}`,
	} {
		if err := json.Unmarshal([]byte(in), &r); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(decodeAny(t, []byte(in)), decodeAny(t, out)); diff != "" {
			t.Errorf("round trip of %s (-in +out):\n%s", in, diff)
		}
	}
	if len(r.Content) != 2 || r.Content[1].MimeType != "image/png" || string(r.Content[1].Data) != "\x89PNG\r\n\x1a\n" {
		t.Errorf("known blocks not read into Content: %+v", r)
	}
	if err := json.Unmarshal([]byte(`null`), &r); err == nil {
		t.Error("null decoded into a ToolResult without error")
	}
}

func TestErrorsCompareByCode(t *testing.T) {
	wrapped := fmt.Errorf("loading: %w", protocol.Errorf(protocol.CodePluginLoad, "plugin %q failed", "x"))
	if !errors.Is(wrapped, protocol.ErrPluginLoad) {
		t.Error("wrapped plugin_load error does not match ErrPluginLoad")
	}
	if errors.Is(wrapped, protocol.ErrPluginState) {
		t.Error("plugin_load error matches ErrPluginState")
	}
	if got := protocol.CodeCancelled.Kind(); got != "cancelled" {
		t.Errorf("kind = %q", got)
	}
}
