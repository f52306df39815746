package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/mediatest"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/internal/todo"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// e2eOnly are the built-ins this package cannot run (no web server, no
// interpreter runtime here); the TypeScript SDK client checks their
// structuredContent against the listed schema in the e2e script
// mcp_node_output_schema.
var e2eOnly = []string{"run_code", "web_fetch", "web_search"}

// TestOutputSchemasCompile: every schema file is an object schema that
// compiles, names a built-in tool, and describes each field the model
// shape moves to the text.
func TestOutputSchemasCompile(t *testing.T) {
	all, err := outputSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range []string{"", resultsModel} {
		for tool, raw := range all[shape] {
			compileOutputSchema(t, tool, raw)
		}
	}
	for tool := range modelMoved {
		if _, ok := all[""][tool]; !ok {
			t.Errorf("%s has a model form but no outputschema/%s.json", tool, tool)
		}
	}
	for tool := range all[""] {
		if _, ok := builtinTitles[tool]; !ok {
			t.Errorf("outputschema/%s.json names no built-in tool", tool)
		}
	}
}

func compileOutputSchema(t *testing.T, tool string, raw json.RawMessage) *schema.Schema {
	t.Helper()
	s, err := schema.CompileDraft7(tool, raw) // the TypeScript SDK's Ajv reads schemas as draft-07
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return s
}

// schemaCall is one call of TestStructuredContentMatchesOutputSchema.
type schemaCall struct {
	tool string
	args map[string]any
}

// schemaCalls run every built-in this package can run, every shape of
// result it has (read_file of text, an image, a notebook and a PDF; grep's
// three outputs), in order: writes follow their reads.
var schemaCalls = []schemaCall{
	{"read_file", map[string]any{"path": "a.go"}},
	{"read_file", map[string]any{"path": "shot.png"}},
	{"read_file", map[string]any{"path": "nb.ipynb"}},
	{"read_file", map[string]any{"path": "doc.pdf"}},
	{"write_file", map[string]any{"path": "new.txt", "content": "new\n"}},
	{"edit_file", map[string]any{"path": "a.go", "edits": []map[string]any{{"oldText": "A()", "newText": "B()"}}}},
	{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: a.go\n@@\n-func B() {}\n+func C() {}\n*** Add File: b.go\n+package a\n*** End Patch\n"}},
	{"notebook_edit", map[string]any{"path": "nb.ipynb", "cellId": "c1", "editMode": "replace", "newSource": "print(2)"}},
	{"grep", map[string]any{"query": "package"}},
	{"grep", map[string]any{"query": "package", "output": "files"}},
	{"grep", map[string]any{"query": "package", "output": "count"}},
	{"glob", map[string]any{"pattern": "*.go"}},
	{"bash", map[string]any{"command": "echo out; echo err >&2"}},
	{"bash_session", map[string]any{"command": "echo hi"}},
	{"write_stdin", nil}, // the session bash_session opened
	{"todo_write", map[string]any{"todos": []map[string]any{{"id": "1", "content": "ship", "status": "in_progress"}}}},
	{"tool_search", map[string]any{"query": "calendar"}},
	{"ask_user", askArgs},
}

// TestStructuredContentMatchesOutputSchema runs each built-in tool through
// tools/call in both results shapes and validates its structuredContent
// against the outputSchema tools/list gave it (MCP: a tool with an
// outputSchema MUST send conforming structuredContent). It is stricter than
// the schema: every field sent must be declared, so in the model shape a
// field the text carries cannot reappear in structuredContent unnoticed.
func TestStructuredContentMatchesOutputSchema(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	for _, shape := range []string{resultsModel, "json"} {
		t.Run(shape, func(t *testing.T) {
			var seen []*mcp.ElicitParams
			h := newHarness(t, setup{results: shape, deps: schemaDeps,
				client: elicitWith(&mcp.ElicitResult{Action: "accept", Content: map[string]any{
					"env": "stg", "checks": []any{"lint"}, "note": "n", "token": "t"}}, &seen)})
			writeSchemaFixtures(t, h.dir)
			schemas := listedOutputSchemas(t, h)
			called := map[string]bool{}
			var session string
			for _, c := range schemaCalls {
				args := c.args
				if c.tool == "write_stdin" {
					args = map[string]any{"sessionId": session, "chars": "exit\n"}
				}
				res := h.call(c.tool, args)
				if res.IsError {
					t.Fatalf("%s %v: %s", c.tool, args, text(res, 0))
				}
				sc := data(t, res)
				checkOutputSchema(t, c.tool, schemas[c.tool], sc)
				if c.tool == "bash_session" {
					session, _ = sc["sessionId"].(string)
				}
				called[c.tool] = true
			}
			for name := range schemas {
				if !called[name] && !slices.Contains(e2eOnly, name) {
					t.Errorf("%s is listed with an outputSchema but not called here", name)
				}
			}
		})
	}
}

// schemaDeps adds what bash, bash_session, write_stdin and todo_write need.
func schemaDeps(t *testing.T, d *tools.Deps) {
	sb, err := sandbox.Open(context.Background(), sandbox.Options{Choice: "none", Workspace: d.Files.Dir(),
		TempParent: t.TempDir(), Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	m, err := shellsession.New(shellsession.Options{Sandbox: sb, Dir: d.Files.Dir(), BufferBytes: 1 << 20,
		MaxSessions: 2, Idle: time.Hour, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	d.Sandbox, d.Sessions, d.Todos = sb, m, todo.NewStore()
	d.BashMaxTimeoutMs, d.BashMaxOutputBytes = 10000, 4096
}

func writeSchemaFixtures(t *testing.T, dir string) {
	writeFile(t, filepath.Join(dir, "a.go"), "package a\nfunc A() {}\n")
	writeFile(t, filepath.Join(dir, "shot.png"), string(mediatest.PNG(mediatest.Gradient(64, 48))))
	writeFile(t, filepath.Join(dir, "doc.pdf"), string(mediatest.PDF(mediatest.PDFOptions{Pages: 1})))
	writeFile(t, filepath.Join(dir, "nb.ipynb"), `{"cells":[{"cell_type":"code","execution_count":null,"id":"c1","metadata":{},`+
		`"outputs":[],"source":["print(1)"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`)
}

// listedOutputSchemas compiles the outputSchema of every listed tool that
// has one, and checks that every built-in with a schema file has it.
func listedOutputSchemas(t *testing.T, h *harness) map[string]*schemaCheck {
	list, err := h.cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*schemaCheck{}
	for _, tl := range list.Tools {
		if tl.OutputSchema == nil {
			if _, ok := builtinTitles[tl.Name]; ok && !strings.HasPrefix(tl.Name, "test_") && !slices.Contains(e2eOnly, tl.Name) {
				t.Errorf("built-in %s is listed without an outputSchema", tl.Name)
			}
			continue
		}
		raw, err := json.Marshal(tl.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var decl struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(raw, &decl); err != nil {
			t.Fatal(err)
		}
		out[tl.Name] = &schemaCheck{schema: compileOutputSchema(t, tl.Name, raw), props: decl.Properties}
	}
	return out
}

// schemaCheck is a listed outputSchema, compiled, and its declared fields.
type schemaCheck struct {
	schema *schema.Schema
	props  map[string]any
}

func checkOutputSchema(t *testing.T, tool string, c *schemaCheck, sc map[string]any) {
	t.Helper()
	if c == nil {
		t.Errorf("%s: no outputSchema listed", tool)
		return
	}
	if err := c.schema.Validate(sc); err != nil {
		t.Errorf("%s: structuredContent does not match its outputSchema: %v\n%v", tool, err, sc)
	}
	for k := range sc {
		if _, ok := c.props[k]; !ok {
			t.Errorf("%s: structuredContent has %q, which its outputSchema does not declare", tool, k)
		}
	}
}

// TestModelOutputSchemaSaysTheTextCarriesTheField: in the model shape a
// moved field is not declared, and the schema's description says where it
// went; in the json shape it is declared.
func TestModelOutputSchemaSaysTheTextCarriesTheField(t *testing.T) {
	all, err := outputSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for tool, moved := range modelMoved {
		var model, js struct {
			Description string         `json:"description"`
			Properties  map[string]any `json:"properties"`
			Required    []string       `json:"required"`
		}
		if err := json.Unmarshal(all[resultsModel][tool], &model); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(all[""][tool], &js); err != nil {
			t.Fatal(err)
		}
		for _, k := range moved {
			if _, ok := model.Properties[k]; ok || slices.Contains(model.Required, k) {
				t.Errorf("%s: the model schema still declares %q", tool, k)
			}
			if _, ok := js.Properties[k]; !ok {
				t.Errorf("%s: the json schema lacks %q", tool, k)
			}
			if !strings.Contains(model.Description, k) || !strings.Contains(model.Description, "text block carries") {
				t.Errorf("%s: the model schema's description does not say the text carries %q: %q", tool, k, model.Description)
			}
		}
	}
	d := protocol.ToolDescriptor{Name: "read_file", Source: "plugin:x"}
	if outputSchema(d, resultsModel) != nil {
		t.Error("a plugin's read_file got the built-in's outputSchema")
	}
}

// TestErrorOfADeclaredToolHasNoStructuredContent: the TypeScript SDK client
// validates an error's structuredContent too and throws instead of
// returning the error, so a tool with an outputSchema sends its error's
// data only as JSON text; a tool without one keeps structuredContent.
func TestErrorOfADeclaredToolHasNoStructuredContent(t *testing.T) {
	for _, shape := range []string{resultsModel, "json"} {
		h := newHarness(t, setup{results: shape})
		writeFile(t, filepath.Join(h.dir, "a.txt"), "a\n")
		res := h.call("edit_file", map[string]any{"path": "a.txt", "expectedVersion": strings.Repeat("0", 64),
			"edits": []map[string]any{{"oldText": "a", "newText": "b"}}})
		if !res.IsError || res.StructuredContent != nil {
			t.Errorf("%s: isError %v, structuredContent %v; want an error without it", shape, res.IsError, res.StructuredContent)
		}
		if !strings.Contains(text(res, 0), "conflict") || !strings.Contains(text(res, 1), `"code":"conflict"`) {
			t.Errorf("%s: the error or its data is missing from the text: %q, %q", shape, text(res, 0), text(res, 1))
		}
		res = h.call("test_fail", map[string]any{})
		if !res.IsError || data(t, res)["missing"] != "thing" {
			t.Errorf("%s: test_fail (no outputSchema) lost its structuredContent: %v", shape, res.StructuredContent)
		}
	}
}
