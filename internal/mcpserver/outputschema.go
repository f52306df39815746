package mcpserver

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"steerable.dev/sidecar/protocol"
)

// outputSchemaFS holds one JSON Schema per built-in tool (outputschema/
// <tool>.json): the data of a successful call, which is the tool's
// structuredContent in the json results shape. MCP requires the
// structuredContent of a tool with an outputSchema to conform to it (an
// isError result is exempt), and the TypeScript SDK client checks it in
// every callTool, so the schemas are permissive where the tools grow
// (extra properties are allowed) and exact where a client relies on them
// (types, the fields every success has). They use only keywords that read
// the same in draft-07 (the SDK's Ajv default) and 2020-12.
//
//go:embed outputschema/*.json
var outputSchemaFS embed.FS

// outputSchemas are the listed schemas by results shape ("model", else
// json) and tool, built once.
var outputSchemas = sync.OnceValues(func() (map[string]map[string]json.RawMessage, error) {
	out := map[string]map[string]json.RawMessage{resultsModel: {}, "": {}}
	entries, err := outputSchemaFS.ReadDir("outputschema")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		tool := strings.TrimSuffix(e.Name(), ".json")
		b, err := outputSchemaFS.ReadFile(path.Join("outputschema", e.Name()))
		if err != nil {
			return nil, err
		}
		json, model, err := schemaShapes(tool, b)
		if err != nil {
			return nil, fmt.Errorf("outputschema/%s: %w", e.Name(), err)
		}
		out[""][tool], out[resultsModel][tool] = json, model
	}
	return out, nil
})

// schemaShapes is a tool's schema for each results shape: as written for
// json; for model without the fields its text carries (modelMoved), which
// the schema's description names.
func schemaShapes(tool string, raw []byte) (jsonShape, modelShape json.RawMessage, err error) {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, nil, err
	}
	props, _ := s["properties"].(map[string]any)
	if s["type"] != "object" || props == nil {
		return nil, nil, fmt.Errorf("not an object schema with properties")
	}
	s["description"] = "The call's data, also sent as JSON text."
	if jsonShape, err = json.Marshal(s); err != nil {
		return nil, nil, err
	}
	moved := modelMoved[tool]
	if len(moved) == 0 {
		return jsonShape, jsonShape, nil
	}
	for _, k := range moved {
		if _, ok := props[k]; !ok {
			return nil, nil, fmt.Errorf("moves %q, which the schema does not describe", k)
		}
		delete(props, k)
	}
	if req, ok := s["required"].([]any); ok {
		kept := req[:0]
		for _, r := range req {
			if name, _ := r.(string); !slices.Contains(moved, name) {
				kept = append(kept, r)
			}
		}
		s["required"] = kept
	}
	s["description"] = fmt.Sprintf("The call's data without %s: the text block carries that, in the form a model reads.",
		strings.Join(moved, " and "))
	modelShape, err = json.Marshal(s)
	return jsonShape, modelShape, err
}

// outputSchema is the outputSchema of a listed tool in the results shape;
// nil for a tool that is not a built-in (a plugin's or host's data has no
// declared shape) or has no schema file.
func outputSchema(d protocol.ToolDescriptor, results string) json.RawMessage {
	if d.Source != protocol.SourceBuiltin {
		return nil
	}
	all, err := outputSchemas()
	if err != nil {
		return nil // TestOutputSchemasCompile fails the build's tests instead
	}
	if results != resultsModel {
		results = ""
	}
	return all[results][d.Name]
}
