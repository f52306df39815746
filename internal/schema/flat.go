package schema

import (
	"bytes"
	"encoding/json"
	"strconv"

	"steerable.dev/sidecar/protocol"
)

// flat is a parameters schema of the shape most tools have — an
// object whose named members are strings, integers (with bounds) or
// booleans, some required, perhaps no others — compiled to a check that
// reads the arguments once, as spans, without decoding them: the JSON
// Schema validator first decodes them into maps and json.Numbers, and on a
// cheap tool that is a quarter of the call. The check only ever accepts:
// whatever it is not sure of (a member twice, 1.0 for an integer, an
// unknown keyword in the schema) goes to the validator, which decides and
// names what is wrong. FuzzFlat checks that it never accepts what
// the validator refuses.
type flat struct {
	props    []flatProp // at most 64: a call marks those it has seen in a bit set
	required uint64     // bits of props that are required
	closed   bool       // additionalProperties: false
}

type flatProp struct {
	name     string
	kind     string // "string", "integer" or "boolean"
	min, max *int64
}

// annotations are keywords that never change what a schema accepts.
var annotations = map[string]bool{"description": true, "title": true, "default": true, "examples": true}

// compileFlat returns the check for a parameters schema of that shape, or
// nil for any other schema.
func compileFlat(params json.RawMessage) *flat {
	var doc map[string]json.RawMessage
	if json.Unmarshal(params, &doc) != nil || string(doc["type"]) != `"object"` {
		return nil
	}
	f := &flat{}
	var required []string
	for k, v := range doc {
		ok := annotations[k]
		switch k {
		case "type":
			ok = true
		case "additionalProperties":
			f.closed, ok = string(v) == "false", string(v) == "false" || string(v) == "true"
		case "required":
			ok = json.Unmarshal(v, &required) == nil
		case "properties":
			ok = f.compileProps(v)
		}
		if !ok {
			return nil
		}
	}
	for _, name := range required {
		i := f.index(name)
		if i < 0 {
			return nil // required but not described: the validator's case
		}
		f.required |= 1 << i
	}
	return f
}

// index is the position of the property name, -1 when there is none.
func (f *flat) index(name string) int {
	for i, p := range f.props {
		if p.name == name {
			return i
		}
	}
	return -1
}

func (f *flat) compileProps(raw json.RawMessage) bool {
	var props map[string]map[string]json.RawMessage
	if json.Unmarshal(raw, &props) != nil || len(props) > 64 {
		return false
	}
	for name, kw := range props {
		p := flatProp{name: name}
		if json.Unmarshal(kw["type"], &p.kind) != nil || (p.kind != "string" && p.kind != "integer" && p.kind != "boolean") {
			return false
		}
		for k, v := range kw {
			ok := annotations[k] || k == "type"
			switch k {
			case "minimum":
				p.min, ok = bound(v), p.kind == "integer" && bound(v) != nil
			case "maximum":
				p.max, ok = bound(v), p.kind == "integer" && bound(v) != nil
			}
			if !ok {
				return false
			}
		}
		f.props = append(f.props, p)
	}
	return true
}

// bound reads an integer bound; nil for anything else.
func bound(v json.RawMessage) *int64 {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// accepts reports whether the schema surely accepts args; false means "ask
// the validator", not "invalid".
func (f *flat) accepts(args json.RawMessage) bool {
	if !json.Valid(args) {
		return false
	}
	var seen uint64
	ok := true
	isObject := protocol.EachMember(args, func(key, v []byte) {
		if !ok {
			return
		}
		i := f.index(string(key))
		switch {
		case i < 0:
			ok = !f.closed
		case seen&(1<<i) != 0: // a repeated member: which one counts is the decoder's business
			ok = false
		default:
			seen |= 1 << i
			ok = f.props[i].accepts(v)
		}
	})
	return isObject && ok && seen&f.required == f.required
}

func (p flatProp) accepts(v []byte) bool {
	switch p.kind {
	case "string":
		return v[0] == '"'
	case "boolean":
		return string(v) == "true" || string(v) == "false"
	}
	// An integer written as one (1.0 and 1e3 are integers to JSON Schema
	// too, but the validator can say so).
	if bytes.ContainsAny(v, ".eE") {
		return false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return err == nil && (p.min == nil || n >= *p.min) && (p.max == nil || n <= *p.max)
}
