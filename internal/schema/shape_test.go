package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckShape(t *testing.T) {
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
			err := CheckShape(v)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// compiles reports whether Compile accepts raw.
func compiles(raw []byte) bool {
	_, err := Compile("t", raw)
	return err == nil
}

// FuzzCheckShape holds the shape check to its promise: whatever it refuses,
// the compiler refuses too (it only moves an error earlier), and it never
// panics on a decoded schema.
func FuzzCheckShape(f *testing.F) {
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
		if err := CheckShape(v); err != nil {
			if _, isObject := v.(map[string]any); isObject && compiles(raw) {
				t.Fatalf("the shape check refused %s (%v), which the compiler accepts", raw, err)
			}
		}
	})
}
