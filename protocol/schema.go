package protocol

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

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

// SchemaSet compiles the embedded schemas on first use: compiling all of
// them takes milliseconds, and start-up must not pay for methods a session
// never calls. It is safe for concurrent use.
type SchemaSet struct {
	once     sync.Once
	initErr  error
	mu       sync.Mutex
	c        *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

// Get returns the compiled schema of the named file ("tool.invoke.params.json").
func (s *SchemaSet) Get(name string) (*jsonschema.Schema, error) {
	s.once.Do(s.load)
	if s.initErr != nil {
		return nil, s.initErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[name]; ok {
		return sch, nil
	}
	sch, err := s.c.Compile(SchemaBaseURL + name)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s.compiled[name] = sch
	return sch, nil
}

// load adds every embedded file as a resource, so $refs between files
// resolve without any loader.
func (s *SchemaSet) load() {
	s.c = jsonschema.NewCompiler()
	s.c.DefaultDraft(jsonschema.Draft2020)
	s.compiled = map[string]*jsonschema.Schema{}
	for _, name := range SchemaNames() {
		b, err := Schemas.ReadFile("schema/" + name)
		if err == nil {
			var doc any
			if doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(b)); err == nil {
				err = s.c.AddResource(SchemaBaseURL+name, doc)
			}
		}
		if err != nil {
			s.initErr = fmt.Errorf("schema %s: %w", name, err)
			return
		}
	}
}

// SchemaNames lists the embedded schema files.
func SchemaNames() []string {
	files, _ := fs.Glob(Schemas, "schema/*.json")
	for i, f := range files {
		files[i] = strings.TrimPrefix(f, "schema/")
	}
	return files
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
