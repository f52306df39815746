package plugins

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func TestSchemaShape(t *testing.T) {
	for _, tc := range []struct {
		name, schema, want string // want: "" accepted, else a part of the error
	}{
		{"empty object", `{}`, ""},
		{"typical", `{"type":"object","properties":{"id":{"type":"string"},"n":{"type":["integer","null"],"minimum":1}},"required":["id"]}`, ""},
		{"nested", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"enum":["x","y"]}}}}}}`, ""},
		{"boolean subschemas", `{"type":"object","properties":{"a":true},"additionalProperties":false}`, ""},
		{"draft 4 exclusive bound", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}`, ""},
		{"tuple items", `{"type":"object","properties":{"p":{"items":[{"type":"number"},{"type":"number"}]}}}`, ""},
		{"a draft's own keyword is left to the compiler", `{"type":"object","$defs":{"x":5},"dependentSchemas":7}`, ""},
		{"integral float count", `{"type":"object","properties":{"s":{"type":"string","maxLength":10.0}}}`, ""},
		{"a list", `[]`, "must be a JSON Schema object, got a list"},
		{"a string", `"object"`, "must be a JSON Schema object, got the string"},
		{"misspelt type", `{"type":"object","properties":{"x":{"type":"strnig"}}}`, `inputSchema /properties/x/type: "strnig" is not a JSON Schema type`},
		{"type in a list", `{"type":["object",3]}`, "3 is not a JSON Schema type"},
		{"properties a list", `{"type":"object","properties":["a"]}`, "inputSchema /properties must be an object of schemas, got a list"},
		{"property a string", `{"type":"object","properties":{"a":"string"}}`, `inputSchema /properties/a must be a schema (an object or a boolean), got the string "string"`},
		{"required a string", `{"type":"object","required":"id"}`, "inputSchema /required must be a list of property names"},
		{"required of numbers", `{"type":"object","required":[1]}`, "inputSchema /required must be a list of property names"},
		{"enum an object", `{"type":"object","properties":{"m":{"enum":{"a":1}}}}`, "inputSchema /properties/m/enum must be a list of values"},
		{"negative length", `{"type":"object","properties":{"s":{"maxLength":-1}}}`, "maxLength must be a non-negative integer"},
		{"fractional length", `{"type":"object","properties":{"s":{"maxLength":1.5}}}`, "maxLength must be a non-negative integer"},
		{"minimum a string", `{"type":"object","properties":{"n":{"minimum":"0"}}}`, "minimum must be a number"},
		{"anyOf an object", `{"anyOf":{"type":"string"}}`, "inputSchema /anyOf must be a list of schemas"},
		{"deep in allOf", `{"allOf":[{"properties":{"a":{"items":{"type":"nope"}}}}]}`, `inputSchema /allOf/0/properties/a/items/type: "nope"`},
		{"pointer escapes", `{"properties":{"a/b~c":{"type":1}}}`, "inputSchema /properties/a~1b~0c/type"},
		{"pattern a number", `{"properties":{"s":{"pattern":5}}}`, "inputSchema /properties/s/pattern must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.schema), &v); err != nil {
				t.Fatal(err)
			}
			err := checkSchemaShape(v)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// hostTool is a tool whose schema the registry compiles at registration.
type hostTool struct{ desc protocol.ToolDescriptor }

func (h hostTool) Descriptor() protocol.ToolDescriptor { return h.desc }
func (hostTool) Run(context.Context, tools.Call) protocol.ToolResult {
	return protocol.ToolResult{}
}

// compiles reports whether the registry's compiler accepts raw.
func compiles(raw []byte) bool {
	return tools.NewRegistry().Register("host", hostTool{protocol.ToolDescriptor{Name: "t", Parameters: raw}}) == nil
}

// FuzzSchemaShape holds the shape check to its promise: whatever it refuses,
// the compiler refuses too (it only moves an error earlier), and it never
// panics on a decoded schema.
func FuzzSchemaShape(f *testing.F) {
	for _, s := range []string{`{}`, `{"type":"object","properties":{"x":{"type":"strnig"}}}`, `{"required":"a"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":[true,{"minLength":2}]}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"exclusiveMaximum":true,"maximum":3}}}`,
		`{"allOf":[{"not":{"enum":[1]}}],"patternProperties":{"^a":{"multipleOf":0.5}}}`, `{"maxItems":1e300}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		if err := checkSchemaShape(v); err != nil {
			if _, isObject := v.(map[string]any); isObject && compiles(raw) {
				t.Fatalf("the shape check refused %s (%v), which the compiler accepts", raw, err)
			}
		}
	})
}

// A schema that is well formed but does not compile (a $ref to nowhere)
// passes registration; the background compile finds it, plugin.list and
// checks.plugins say so, and a call answers a follow-up naming the problem
// and plugin.reload — while the plugin's other tools keep working.
func TestSchemaThatDoesNotCompileAnswersNamingReload(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "late", "-dangling-ref", "-read-file=false"))
	f.m.bg.Wait()
	rec := f.record(t, "late")
	if rec.State != protocol.PluginEnabled || !strings.Contains(rec.Error, `tool "dangling": invalid parameters schema`) || !strings.Contains(rec.Error, "plugin.reload") {
		t.Errorf("record: %+v", rec)
	}
	if c := f.m.Check(); c.Status != protocol.CheckError || !strings.Contains(c.Message, `late: 1 of its tools cannot be called`) {
		t.Errorf("check: %+v", c)
	}
	res := f.call(t, "dangling", `{"x":1}`)
	if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "nowhere") || !strings.Contains(res.Error, `plugin.reload {"name":"late"}`) {
		t.Errorf("call: %+v", res)
	}
	if res := f.call(t, "echo", `{"text":"still here"}`); !res.Success || res.Message != "still here" {
		t.Errorf("another tool of the plugin: %+v", res)
	}
}

// The same tool called before the background compile reached it answers
// the same follow-up: the call compiles it itself.
func TestSchemaCompiledByTheFirstCall(t *testing.T) {
	m, p := registerOnly()
	defer m.Close(0)
	list := append(generated(300), danglingTool())
	if _, err := p.register(started{srv: &server{proc: idleProcess{}}, list: list}, nil); err != nil {
		t.Fatal(err)
	}
	d := tools.NewDispatcher(m.reg, nil, zerolog.Nop())
	res := d.Dispatch(context.Background(), tools.Invocation{ToolCall: protocol.ToolCall{ID: "c", Name: "dangling", Arguments: json.RawMessage(`{}`)}})
	if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "plugin.reload") {
		t.Errorf("call: %+v", res)
	}
	if bad := p.schemas.String(); !strings.Contains(bad, `tool "dangling": invalid parameters schema`) {
		t.Errorf("the record does not say so at once: %q", bad)
	}
}

// A re-registration (list_changed, reload) clears what the compile of the
// previous one found.
func TestSchemaProblemClearedByTheNextRegistration(t *testing.T) {
	m, p := registerOnly()
	defer m.Close(0)
	srv := &server{proc: idleProcess{}}
	names, err := p.register(started{srv: srv, list: append(generated(2), danglingTool())}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.bg.Wait()
	if p.schemas.String() == "" {
		t.Fatal("the dangling $ref was not found")
	}
	if _, err := p.register(started{srv: srv, list: generated(2)}, names); err != nil {
		t.Fatal(err)
	}
	m.bg.Wait()
	if bad := p.schemas.String(); bad != "" {
		t.Errorf("still reported after a clean registration: %s", bad)
	}
}

// danglingTool's schema is well formed and refers to a definition it lacks.
func danglingTool() *mcp.Tool {
	return &mcp.Tool{Name: "dangling", InputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/nowhere"}}}}
}
