package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"steerable.dev/sidecar/internal/clip"
)

// The registration shape check (package doc) looks at the mistakes a
// server makes in practice: a type that is not a JSON Schema type, a
// "properties" that is not an object of schemas, a "required" that is not
// a list of names. It never refuses a schema Compile accepts: it looks only
// at keywords that mean the same in every draft the compiler knows (4, 6,
// 7, 2019-09, 2020-12), and accepts each keyword in the loosest form any of
// them allows (FuzzCheckShape holds it to that). It does not bound the
// schema's size or depth: its caller's decoder has.

// jsonTypes are the values "type" may name.
var jsonTypes = map[string]bool{"array": true, "boolean": true, "integer": true, "null": true, "number": true, "object": true, "string": true}

// Keywords, by the shape of their value, in every draft.
var (
	schemaKeywords     = []string{"additionalProperties", "not"}
	schemaMapKeywords  = []string{"properties", "patternProperties"}
	schemaListKeywords = []string{"allOf", "anyOf", "oneOf"}
	countKeywords      = []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
	numberKeywords     = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)

// CheckShape is registration's check of an inputSchema (decoded JSON): an
// object whose keywords have the shapes JSON Schema gives them. What it
// does not look at (a $ref's target, a pattern's syntax, a draft's own
// keywords) Compile checks after registration. Its errors name the place
// as a JSON pointer into the "inputSchema".
func CheckShape(schema any) error {
	if _, ok := schema.(map[string]any); !ok {
		return fmt.Errorf("must be a JSON Schema object, got %s", kindOf(schema))
	}
	return shapeOf(schema, "")
}

// shapeOf checks one schema (an object, or a boolean where a subschema is
// allowed) at the JSON pointer at.
func shapeOf(v any, at string) error {
	if _, ok := v.(bool); ok {
		return nil
	}
	s, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s must be a schema (an object or a boolean), got %s", pointer(at), kindOf(v))
	}
	if err := keywordShapes(s, at); err != nil {
		return err
	}
	return subschemaShapes(s, at)
}

// keywordShapes checks the keywords that are not subschemas.
func keywordShapes(s map[string]any, at string) error {
	if t, ok := s["type"]; ok {
		if err := typeShape(t, at+"/type"); err != nil {
			return err
		}
	}
	if r, ok := s["required"]; ok {
		if _, isBool := r.(bool); !isBool && !stringList(r) { // a boolean is draft 3's
			return fmt.Errorf("%s must be a list of property names, got %s", pointer(at+"/required"), kindOf(r))
		}
	}
	if e, ok := s["enum"]; ok {
		if _, isList := e.([]any); !isList {
			return fmt.Errorf("%s must be a list of values, got %s", pointer(at+"/enum"), kindOf(e))
		}
	}
	for _, k := range []string{"pattern"} {
		if x, ok := s[k]; ok {
			if _, isString := x.(string); !isString {
				return fmt.Errorf("%s must be a string, got %s", pointer(at+"/"+k), kindOf(x))
			}
		}
	}
	for _, k := range countKeywords {
		if x, ok := s[k]; ok {
			if f, isNum := number(x); !isNum || f < 0 || f != math.Trunc(f) {
				return fmt.Errorf("%s must be a non-negative integer, got %s", pointer(at+"/"+k), kindOf(x))
			}
		}
	}
	for _, k := range numberKeywords {
		if x, ok := s[k]; ok {
			if _, isNum := number(x); !isNum {
				if _, isBool := x.(bool); !isBool || !strings.HasPrefix(k, "exclusive") { // a boolean is draft 4's
					return fmt.Errorf("%s must be a number, got %s", pointer(at+"/"+k), kindOf(x))
				}
			}
		}
	}
	return nil
}

// typeShape checks "type": one JSON Schema type name or a list of them.
func typeShape(t any, at string) error {
	names, ok := t.([]any)
	if !ok {
		names = []any{t}
	}
	for _, n := range names {
		if s, isString := n.(string); !isString || !jsonTypes[s] {
			b, _ := json.Marshal(n)
			return fmt.Errorf("%s: %s is not a JSON Schema type (array, boolean, integer, null, number, object, string)", pointer(at), clip.Within(string(b), 80))
		}
	}
	return nil
}

// subschemaShapes checks the keywords whose values are schemas.
func subschemaShapes(s map[string]any, at string) error {
	for _, k := range schemaKeywords {
		if x, ok := s[k]; ok {
			if err := shapeOf(x, at+"/"+k); err != nil {
				return err
			}
		}
	}
	for _, k := range schemaMapKeywords {
		x, ok := s[k]
		if !ok {
			continue
		}
		m, isMap := x.(map[string]any)
		if !isMap {
			return fmt.Errorf("%s must be an object of schemas, got %s", pointer(at+"/"+k), kindOf(x))
		}
		for name, sub := range m {
			if err := shapeOf(sub, at+"/"+k+"/"+escapePointer(name)); err != nil {
				return err
			}
		}
	}
	for _, k := range append(schemaListKeywords, "items") {
		x, ok := s[k]
		if !ok {
			continue
		}
		list, isList := x.([]any)
		if !isList {
			if k == "items" { // one schema (a list is the older drafts' tuple form)
				if err := shapeOf(x, at+"/items"); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("%s must be a list of schemas, got %s", pointer(at+"/"+k), kindOf(x))
		}
		for i, sub := range list {
			if err := shapeOf(sub, fmt.Sprintf("%s/%s/%d", at, k, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// number is a JSON number: a float64 as decoded, a json.Number from a
// decoder that keeps them, or a Go integer in a schema built in process.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case float32:
		return float64(v), true
	}
	return 0, false
}

func stringList(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range list {
		if _, isString := x.(string); !isString {
			return false
		}
	}
	return true
}

// kindOf names a decoded JSON value's kind for a message.
func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, float32, int, int64, json.Number:
		return "a number"
	case string:
		return clip.Within(fmt.Sprintf("the string %q", v), 100)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// pointer is a JSON pointer into the inputSchema, for a message.
func pointer(at string) string {
	if at == "" {
		return "inputSchema"
	}
	return "inputSchema " + clip.Within(at, 200)
}
