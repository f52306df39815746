package plugins

import (
	"fmt"
	"regexp"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// Router is what a compiled-in plugin registers its tools with (tools-spec:
// "register(router)"). It is a recording proxy over the sidecar's
// registry: it records what the plugin registers, checks each tool as it
// comes (name, conflicts), and only when Register has returned without
// error do all of them reach the registry, in one atomic swap. A
// registration that fails midway therefore leaves nothing behind.
type Router interface {
	Register(ts ...tools.Tool) error
}

// recorder is the Router of one plugin's registration.
type recorder struct {
	spec   Spec
	reg    *tools.Registry
	owned  []string // what the plugin has registered now (replaced by the commit)
	own    map[string]bool
	staged []tools.Tool
	names  []string // of staged, in order
	seen   map[string]bool
}

func newRecorder(spec Spec, reg *tools.Registry, owned []string) *recorder {
	own := make(map[string]bool, len(owned))
	for _, n := range owned {
		own[n] = true
	}
	return &recorder{spec: spec, reg: reg, owned: owned, own: own, seen: map[string]bool{}}
}

// Register implements Router.
func (r *recorder) Register(ts ...tools.Tool) error {
	for _, t := range ts {
		if err := r.stage(r.spec.named(t)); err != nil {
			return err
		}
	}
	return nil
}

// stage records a tool already named and tiered as the plugin's.
func (r *recorder) stage(t tools.Tool) error {
	name := t.Descriptor().Name
	if err := r.check(name); err != nil {
		return err
	}
	r.staged, r.names = append(r.staged, t), append(r.names, name)
	r.seen[name] = true
	return nil
}

// check refuses a name the plugin already staged or another source owns:
// the first registrant wins (SPEC §4.7), and the message names both and
// the fix.
func (r *recorder) check(name string) error {
	if r.seen[name] {
		return loadErr(r.spec, "it lists the tool %q twice; give each tool a unique name", name)
	}
	if e, ok := r.reg.Lookup(name); ok && !r.own[name] {
		return loadErr(r.spec, "its tool %q is already registered by %s (the first registrant wins); set \"toolPrefix\" (e.g. %q) in the plugin's manifest to give its tools names of their own",
			name, e.Desc.Source, suggestPrefix(r.spec.Name))
	}
	return nil
}

// commit swaps the staged tools in for the owned ones, atomically: on error
// the registry is as it was. It returns the names now registered, in
// registration order.
func (r *recorder) commit() ([]string, error) {
	if err := r.reg.Swap(r.spec.source(), r.owned, r.staged); err != nil {
		return nil, loadErr(r.spec, "registering its tools failed, none were registered: %v", err)
	}
	return r.names, nil
}

// named gives a compiled-in tool the plugin's prefix and exposure.
func (s Spec) named(t tools.Tool) tools.Tool {
	d := t.Descriptor()
	if s.ToolPrefix == "" && d.Exposure != "" {
		return t
	}
	d.Name = s.ToolPrefix + d.Name
	if d.Exposure == "" {
		d.Exposure = s.exposure()
	}
	return renamed{Tool: t, desc: d}
}

// renamed is a tool under the name and tier its plugin gives it.
type renamed struct {
	tools.Tool
	desc protocol.ToolDescriptor
}

func (r renamed) Descriptor() protocol.ToolDescriptor { return r.desc }

var notPrefixChar = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// suggestPrefix is the toolPrefix a conflict message proposes: the
// plugin's name as an identifier, and "__".
func suggestPrefix(name string) string {
	return notPrefixChar.ReplaceAllString(name, "_") + "__"
}

// loadErr is a plugin_load error naming the plugin.
func loadErr(s Spec, format string, args ...any) *protocol.Error {
	return protocol.Errorf(protocol.CodePluginLoad, "plugin %q: %s", s.Name, fmt.Sprintf(format, args...)).WithData("plugin", s.Name)
}

var _ Router = (*recorder)(nil)
var _ tools.Tool = renamed{}
