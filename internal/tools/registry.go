package tools

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/protocol"
)

// Registry holds every registered tool, keyed by name. It is safe for
// concurrent use; observers (the tool_search index) hear about every change
// synchronously, before the mutating call returns.
type Registry struct {
	mu        sync.RWMutex
	entries   map[string]*Entry
	observers []func(Change)
}

// Entry is one registered tool with its resolved descriptor.
type Entry struct {
	Tool Tool
	Desc protocol.ToolDescriptor // mode, exposure and source resolved

	// The compiled parameters schema. Schemas from hosts are compiled at
	// registration, so a bad one is refused there; built-in schemas, and
	// those of tools that are a LazySchema, are compiled on first use (or
	// by Warm after start-up): the built-ins are fixed in the binary and
	// tested, and start-up must not pay for compiling them.
	schemaOnce sync.Once
	schema     *schema.Schema
	schemaErr  error
}

// Schema returns the compiled parameters schema.
func (e *Entry) Schema() (*schema.Schema, error) {
	e.schemaOnce.Do(func() {
		e.schema, e.schemaErr = schema.Compile(e.Desc.Name, e.Desc.Parameters)
		if e.schemaErr != nil {
			e.schemaErr = fmt.Errorf("tool %q: invalid parameters schema: %w", e.Desc.Name, e.schemaErr)
		}
	})
	return e.schema, e.schemaErr
}

// LazySchema marks a tool whose schema the registry does not compile at
// registration: its source has checked the schema's shape and compiles it
// itself after registering (a plugin listing hundreds of tools must not
// hold its start for the compiler), and the tool's Prepare turns a compile
// failure into a result that names the fix.
type LazySchema interface {
	LazySchema()
}

// Change reports what a Register, Unregister or Swap did.
type Change struct {
	Added   []protocol.ToolDescriptor
	Removed []string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{entries: map[string]*Entry{}}
}

// validName reports whether name is what hosts and model APIs accept as a
// tool name: 1-128 of A-Z a-z 0-9 _ . : -. (A loop, not the equivalent
// regexp: compiling {1,128} unrolls 128 states at package init, on every
// start.)
func validName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// Observe adds fn to the observers. fn runs with the registry unlocked, in
// the goroutine that changed it.
func (r *Registry) Observe(fn func(Change)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.observers = append(r.observers, fn)
}

// Register adds tools from one source, all or none: a bad descriptor or a
// name taken (by another source or twice in the list) registers nothing.
func (r *Registry) Register(source string, tools ...Tool) error {
	return r.Swap(source, nil, tools)
}

// Unregister removes the named tools; unknown names are ignored.
func (r *Registry) Unregister(names ...string) {
	r.mu.Lock()
	var removed []string
	for _, n := range names {
		if _, ok := r.entries[n]; ok {
			delete(r.entries, n)
			removed = append(removed, n)
		}
	}
	observers := r.observers
	r.mu.Unlock()
	notify(observers, Change{Removed: removed})
}

// Swap atomically removes the named tools and registers the new ones from
// source (a host re-registering its set, a plugin reloading). On error
// nothing changes.
func (r *Registry) Swap(source string, remove []string, add []Tool) error {
	entries := make([]*Entry, 0, len(add))
	for _, t := range add {
		e, err := newEntry(t, source)
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	r.mu.Lock()
	gone := map[string]bool{}
	for _, n := range remove {
		if _, ok := r.entries[n]; ok {
			gone[n] = true
		}
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Desc.Name
		if seen[name] {
			r.mu.Unlock()
			return fmt.Errorf("tool %q is listed twice in what %s registers; give each tool a unique name", name, source)
		}
		if old, ok := r.entries[name]; ok && !gone[name] {
			r.mu.Unlock()
			return fmt.Errorf("tool %q is already registered by %s; %s cannot register it", name, old.Desc.Source, source)
		}
		seen[name] = true
	}
	change := Change{}
	for n := range gone {
		delete(r.entries, n)
		change.Removed = append(change.Removed, n)
	}
	for _, e := range entries {
		r.entries[e.Desc.Name] = e
		change.Added = append(change.Added, e.Desc)
	}
	observers := r.observers
	r.mu.Unlock()
	sort.Strings(change.Removed)
	notify(observers, change)
	return nil
}

func notify(observers []func(Change), c Change) {
	if len(c.Added) == 0 && len(c.Removed) == 0 {
		return
	}
	for _, fn := range observers {
		fn(c)
	}
}

// newEntry validates a tool's descriptor and resolves mode, exposure and
// source.
func newEntry(t Tool, source string) (*Entry, error) {
	d := t.Descriptor()
	if !validName(d.Name) {
		return nil, fmt.Errorf("tool name %q is invalid: use 1-128 letters, digits, '_', '-', '.', ':'", d.Name)
	}
	if d.Mode != "" && !d.Mode.Valid() {
		return nil, fmt.Errorf("tool %q: mode %q is not one of read, safe_write, destructive, local, external", d.Name, d.Mode)
	}
	if d.Exposure == "" {
		d.Exposure = protocol.ExposureDirect
	}
	if !d.Exposure.Valid() {
		return nil, fmt.Errorf("tool %q: exposure %q is not one of direct, deferred, hidden", d.Name, d.Exposure)
	}
	d.Mode = Classify(d.Name, d.Mode)
	d.Source = source
	d.Parameters = compact(d.Parameters)
	e := &Entry{Tool: t, Desc: d}
	if _, lazy := t.(LazySchema); source != protocol.SourceBuiltin && !lazy {
		if _, err := e.Schema(); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Warm compiles every schema not compiled yet (the built-ins'), so the first
// call of each tool does not pay for it. The server runs it in the
// background once it is ready.
func (r *Registry) Warm() {
	r.mu.RLock()
	entries := make([]*Entry, 0, len(r.entries))
	for _, e := range r.entries {
		entries = append(entries, e)
	}
	r.mu.RUnlock()
	for _, e := range entries {
		e.Schema()
	}
}

// compact drops insignificant whitespace; invalid JSON is kept as it is so
// the schema compiler can say what is wrong with it.
func compact(raw json.RawMessage) json.RawMessage {
	out, err := json.Marshal(raw)
	if err != nil {
		return raw
	}
	return out
}

// Lookup returns the named tool.
func (r *Registry) Lookup(name string) (*Entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[name]
	return e, ok
}

// Len is the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.entries)
}

// Descriptors returns every registered tool's descriptor, sorted by name.
func (r *Registry) Descriptors() []protocol.ToolDescriptor {
	r.mu.RLock()
	out := make([]protocol.ToolDescriptor, 0, len(r.entries))
	for _, e := range r.entries {
		out = append(out, e.Desc)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the names registered by source, sorted.
func (r *Registry) Names(source string) []string {
	var out []string
	for _, d := range r.Descriptors() {
		if d.Source == source {
			out = append(out, d.Name)
		}
	}
	return out
}
