package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"steerable.dev/sidecar/protocol"
)

// flatSchemas are the shapes the fast check takes, and some it must not.
var flatSchemas = []string{
	`{"type":"object","additionalProperties":false,"required":["path"],"properties":{` +
		`"path":{"type":"string","description":"file path"},` +
		`"offset":{"type":"integer","minimum":1},"limit":{"type":"integer","minimum":1,"maximum":1000}}}`,
	`{"type":"object","properties":{"flag":{"type":"boolean"},"n":{"type":"integer"}},"required":["flag"]}`,
	`{"type":"object","additionalProperties":true,"title":"t","properties":{}}`,
	// Not flat: each goes to the validator whole.
	`{"type":"object","properties":{"s":{"type":"string","minLength":2}}}`,
	`{"type":"object","properties":{"x":{"type":["string","null"]}}}`,
	`{"type":"object","properties":{"n":{"type":"number"}}}`,
	`{"type":"object","required":["ghost"],"properties":{}}`,
	`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
	`{"type":"object","properties":{"n":{"type":"integer","minimum":1.5}}}`,
	`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
}

// FuzzFlatSchema: the fast check never accepts arguments the JSON Schema
// validator refuses.
func FuzzFlatSchema(f *testing.F) {
	for _, a := range []string{`{"path":"a.txt"}`, `{"path":"a","offset":1,"limit":1000}`, `{"path":"a","limit":1001}`,
		`{"path":"a","offset":0}`, `{"path":"a","offset":1.0}`, `{"path":"a","path":"b"}`, `{"path":1}`, `{"pa\u0074h":"x"}`,
		`{"flag":true,"n":-5,"other":[1,{}]}`, `{"flag":null}`, `{"n":99999999999999999999,"flag":false}`, `[]`, `"x"`,
		`{"s":"a","x":null,"n":1,"ghost":1,"xy":2}`, `{"path":"a"} trailing`, `{"path":"a",}`} {
		f.Add(a)
	}
	compiled := make([]*Entry, len(flatSchemas))
	for i, s := range flatSchemas {
		compiled[i] = &Entry{Desc: protocol.ToolDescriptor{Name: "t", Parameters: json.RawMessage(s)}}
		if _, err := compiled[i].Schema(); err != nil {
			f.Fatalf("schema %s: %v", s, err)
		}
	}
	f.Fuzz(func(t *testing.T, args string) {
		for _, e := range compiled {
			if e.flat == nil || !e.flat.accepts(json.RawMessage(args)) {
				continue
			}
			inst, err := decodeInstance(json.RawMessage(args))
			if err != nil {
				t.Fatalf("accepted %s, which does not decode: %v", args, err)
			}
			if err := e.schema.Validate(inst); err != nil {
				t.Fatalf("accepted %s, which %s refuses: %v", args, e.Desc.Parameters, err)
			}
		}
	})
}

// TestFlatSchemaCompilesOnlyWhatItCanCheck: the fast check exists for the
// flat shapes only, and for the built-in tools that have one.
func TestFlatSchemaCompilesOnlyWhatItCanCheck(t *testing.T) {
	for i, s := range flatSchemas {
		if got, want := compileFlat(json.RawMessage(s)) != nil, i < 3; got != want {
			t.Errorf("compileFlat(%s) != nil is %v, want %v", s, got, want)
		}
	}
	h := newFileHarness(t)
	for _, name := range []string{"read_file"} {
		e, ok := h.d.reg.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		if _, err := e.Schema(); err != nil || e.flat == nil {
			t.Errorf("%s: no fast check (%v)", name, err)
		}
	}
}

// TestFlatSchemaLeavesRefusalsToTheValidator: arguments the fast check
// does not take get the validator's verdict and message, as before.
func TestFlatSchemaLeavesRefusalsToTheValidator(t *testing.T) {
	h := newFileHarness(t)
	for _, tc := range []struct{ args, want string }{
		{`{"path":"a.txt","offset":0}`, "/offset"},
		{`{"path":"a.txt","extra":1}`, "extra"},
		{`{"offset":1}`, "path"},
		{`{"path":7}`, "/path"},
	} {
		res := h.d.Dispatch(t.Context(), Invocation{ToolCall: protocol.ToolCall{Name: "read_file", Arguments: json.RawMessage(tc.args)}})
		if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "invalid arguments for read_file") || !strings.Contains(res.Error, tc.want) {
			t.Errorf("read_file %s = %+v, want the validator's refusal naming %s", tc.args, res, tc.want)
		}
	}
}

// BenchmarkPrepareReadFileArgs: what checking read_file's arguments costs.
func BenchmarkPrepareReadFileArgs(b *testing.B) {
	h := newFileHarness(b)
	e, _ := h.d.reg.Lookup("read_file")
	args := json.RawMessage(`{"path":"some/dir/file.go","offset":10,"limit":200}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, refused := prepare(e, args); refused != nil {
			b.Fatal(refused.Error)
		}
	}
}
