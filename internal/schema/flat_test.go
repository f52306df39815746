package schema

import (
	"encoding/json"
	"testing"
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

// FuzzFlat: the fast check never accepts arguments the JSON Schema
// validator refuses.
func FuzzFlat(f *testing.F) {
	for _, a := range []string{`{"path":"a.txt"}`, `{"path":"a","offset":1,"limit":1000}`, `{"path":"a","limit":1001}`,
		`{"path":"a","offset":0}`, `{"path":"a","offset":1.0}`, `{"path":"a","path":"b"}`, `{"path":1}`, `{"pa\u0074h":"x"}`,
		`{"flag":true,"n":-5,"other":[1,{}]}`, `{"flag":null}`, `{"n":99999999999999999999,"flag":false}`, `[]`, `"x"`,
		`{"s":"a","x":null,"n":1,"ghost":1,"xy":2}`, `{"path":"a"} trailing`, `{"path":"a",}`} {
		f.Add(a)
	}
	compiled := make([]*Schema, len(flatSchemas))
	for i, s := range flatSchemas {
		var err error
		if compiled[i], err = Compile("t", json.RawMessage(s)); err != nil {
			f.Fatalf("schema %s: %v", s, err)
		}
	}
	f.Fuzz(func(t *testing.T, args string) {
		for i, sch := range compiled {
			if !sch.Accepts(json.RawMessage(args)) {
				continue
			}
			inst, err := Decode(json.RawMessage(args))
			if err != nil {
				t.Fatalf("accepted %s, which does not decode: %v", args, err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Fatalf("accepted %s, which %s refuses: %v", args, flatSchemas[i], err)
			}
		}
	})
}

// TestFlatCompilesOnlyWhatItCanCheck: the fast check exists for the flat
// shapes only.
func TestFlatCompilesOnlyWhatItCanCheck(t *testing.T) {
	for i, s := range flatSchemas {
		sch, err := Compile("t", json.RawMessage(s))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sch.Fast(), i < 3; got != want {
			t.Errorf("Compile(%s).Fast() is %v, want %v", s, got, want)
		}
	}
}
