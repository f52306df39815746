package protocol

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schemas holds the JSON Schemas (draft 2020-12) of every wire type, one file
// per type, named after the method they belong to
// ("tool.invoke.params.json") or the type ("toolresult.json").
//
//go:embed schema/*.json
var Schemas embed.FS

// SchemaBaseURL is the prefix of every schema's $id; files refer to each
// other by relative reference.
const SchemaBaseURL = "https://steerable.dev/schema/"

// CompileSchemas compiles every embedded schema and returns them by file
// name. The files are part of the binary, so an error here is a build
// defect.
func CompileSchemas() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	files, err := fs.Glob(Schemas, "schema/*.json")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := Schemas.ReadFile(f)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", f, err)
		}
		if err := c.AddResource(SchemaBaseURL+strings.TrimPrefix(f, "schema/"), doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", f, err)
		}
	}
	out := make(map[string]*jsonschema.Schema, len(files))
	for _, f := range files {
		name := strings.TrimPrefix(f, "schema/")
		s, err := c.Compile(SchemaBaseURL + name)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
}

// maxSchemaErrors bounds a validation report: a huge instance can fail
// thousands of times and the reader needs the first few.
const maxSchemaErrors = 12

var printer = message.NewPrinter(language.English)

// SchemaErrors flattens a validation error into one line per failing JSON
// pointer and what was expected, e.g.
//
//	at /path: got number, want string
//	at /: missing property 'content'
func SchemaErrors(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, fmt.Sprintf("at %s: %s", jsonPointer(e.InstanceLocation), e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(out) > maxSchemaErrors {
		out = append(out[:maxSchemaErrors], fmt.Sprintf("and %d more", len(out)-maxSchemaErrors))
	}
	return out
}

// jsonPointer renders an instance location as an RFC 6901 pointer ("/" for
// the root).
func jsonPointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(tok))
	}
	return b.String()
}
