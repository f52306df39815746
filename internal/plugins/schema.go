package plugins

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// A plugin's tool schemas are checked in two steps. Compiling a JSON Schema
// (validating it against its draft's meta-schema, then building the
// validator) costs about 0.1 ms a tool: 50 ms of the start of a server
// listing 500 tools, most of its registration. So registration checks only
// the schema's shape — the mistakes a server makes in practice: a type
// that is not a JSON Schema type, a "properties" that is not an object of
// schemas, a "required" that is not a list of names — and fails the load
// naming the tool, as before. The full compile runs after registration
// (compileLater), in the background; a schema that fails there makes its
// tool answer a follow-up error naming the problem and plugin.reload
// (mcpTool.Prepare), and plugin.list and checks.plugins report it.
//
// The shape check never refuses a schema the compiler accepts: it looks
// only at keywords that mean the same in every draft the compiler knows
// (4, 6, 7, 2019-09, 2020-12), and accepts each keyword in the loosest form
// any of them allows (FuzzSchemaShape holds it to that). The SDK's decoder
// has bounded the schema's size and depth already.

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

// checkSchemaShape is registration's check of an inputSchema (decoded
// JSON): an object whose keywords have the shapes JSON Schema gives them.
// What it does not look at (a $ref's target, a pattern's syntax, a
// draft's own keywords) the compiler checks after registration.
func checkSchemaShape(schema any) error {
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
			return fmt.Errorf("%s: %s is not a JSON Schema type (array, boolean, integer, null, number, object, string)", pointer(at), clip(string(b), 80))
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
		return clip(fmt.Sprintf("the string %q", v), 100)
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
	return "inputSchema " + clip(at, 200)
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// schemaReport is what is wrong with the schemas of one registration of a
// plugin's tools: found by the background compile, or by a call that got
// to a tool first. A new registration starts a new report.
type schemaReport struct {
	plugin string
	mu     sync.Mutex
	bad    []string // "tool X: invalid parameters schema: …", at most maxSchemaProblems
	more   int
}

// maxSchemaProblems bounds what a plugin's record says about its schemas.
const maxSchemaProblems = 5

// add records a problem once.
func (r *schemaReport) add(problem string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case slices.Contains(r.bad, problem):
	case len(r.bad) < maxSchemaProblems:
		r.bad = append(r.bad, problem)
	default:
		r.more++
	}
}

// String is the report for plugin.list and checks.plugins ("" when
// nothing is wrong, or nothing found yet).
func (r *schemaReport) String() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) == 0 {
		return ""
	}
	list := strings.Join(r.bad, "; ")
	if r.more > 0 {
		list += fmt.Sprintf("; and %d more", r.more)
	}
	return fmt.Sprintf("%d of its tools cannot be called, their parameters schemas do not compile: %s; fix the plugin, then plugin.reload {\"name\":%q}",
		len(r.bad)+r.more, list, r.plugin)
}

// compileLater compiles, in the background, the schemas of the tools just
// registered (names) through the registry's entries — each compiles once,
// here or on its first call, whichever comes first — into the report.
// Close waits for it, and a closed manager ends it early.
func (m *Manager) compileLater(report *schemaReport, names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.bg.Go(func() {
		found := false
		for _, n := range names {
			if m.ctx.Err() != nil {
				return
			}
			if e, ok := m.reg.Lookup(n); ok {
				if _, err := e.Schema(); err != nil {
					report.add(clip(err.Error(), 500))
					found = true
				}
			}
		}
		if found {
			log := m.logFor(report.plugin)
			log.Error().Str("problems", report.String()).Msg("plugin tools whose schemas do not compile answer errors until plugin.reload")
		}
	})
}
