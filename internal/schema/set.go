package schema

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"steerable.dev/sidecar/protocol"
)

// Set compiles the wire schemas (protocol.Schemas) on first use: compiling
// all of them takes milliseconds, and start-up must not pay for methods a
// session never calls. The zero Set is ready; it is safe for concurrent
// use.
type Set struct {
	once     sync.Once
	initErr  error
	mu       sync.Mutex
	c        *jsonschema.Compiler
	compiled map[string]*Schema
}

// Get returns the compiled schema of the named file ("tool.invoke.params.json").
func (s *Set) Get(name string) (*Schema, error) {
	s.once.Do(s.load)
	if s.initErr != nil {
		return nil, s.initErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[name]; ok {
		return sch, nil
	}
	v, err := s.c.Compile(protocol.SchemaBaseURL + name)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	sch := &Schema{v: v}
	s.compiled[name] = sch
	return sch, nil
}

// load adds every embedded file as a resource, so $refs between files
// resolve without any loader.
func (s *Set) load() {
	s.c = jsonschema.NewCompiler()
	s.c.DefaultDraft(jsonschema.Draft2020)
	s.compiled = map[string]*Schema{}
	for _, name := range protocol.SchemaNames() {
		b, err := protocol.Schemas.ReadFile("schema/" + name)
		if err == nil {
			var doc any
			if doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(b)); err == nil {
				err = s.c.AddResource(protocol.SchemaBaseURL+name, doc)
			}
		}
		if err != nil {
			s.initErr = fmt.Errorf("schema %s: %w", name, err)
			return
		}
	}
}
