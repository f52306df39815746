package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled schema, with the fast check of its arguments when
// it is flat.
type Schema struct {
	v    *jsonschema.Schema
	flat *flat
}

// Validate checks a decoded instance (Decode); the error lists what is
// wrong (Errors).
func (s *Schema) Validate(inst any) error { return s.v.Validate(inst) }

// Accepts reports whether the fast check surely accepts args (raw JSON);
// false means "ask Validate", not "invalid".
func (s *Schema) Accepts(args json.RawMessage) bool { return s.flat != nil && s.flat.accepts(args) }

// Fast reports whether the schema has a fast check.
func (s *Schema) Fast() bool { return s.flat != nil }

// noLoader refuses every external $ref. Tool schemas come from plugins and
// hosts; without it a schema could make the compiler read local files
// ("$ref": "file:///etc/passwd") or, with another loader, fetch URLs.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not allowed in tool schemas", url)
}

// Compile compiles the parameters schema of the tool name under the
// metaschema policy (package doc), with its fast check when it is flat.
func Compile(name string, params json.RawMessage) (*Schema, error) {
	return compile(name, params, jsonschema.Draft2020)
}

// CompileDraft7 is Compile for a schema read as a draft-07 client reads it
// when it names no draft (the MCP TypeScript SDK's Ajv does): the check of
// what we promise such clients, as outputSchema.
func CompileDraft7(name string, params json.RawMessage) (*Schema, error) {
	return compile(name, params, jsonschema.Draft7)
}

func compile(name string, params json.RawMessage, draft *jsonschema.Draft) (*Schema, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		return nil, errors.New("parameters schema is missing")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return nil, fmt.Errorf("parameters are not JSON: %w", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, errors.New("parameters schema must be a JSON object")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	c.UseLoader(noLoader{})
	url := "tool:///" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	v, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Schema{v: v, flat: compileFlat(params)}, nil
}
