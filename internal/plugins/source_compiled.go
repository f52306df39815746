package plugins

import (
	"context"
	"encoding/json"
	"fmt"

	"steerable.dev/sidecar/protocol"
)

// Compiled is a plugin compiled into the binary: Go code that embeds the
// sidecar adds one to cmd's list, and Register adds its tools through the
// Router, as tools-spec's register(router) does. Its tools run in the
// sidecar's own process (no sandbox of their own) and it cannot be
// reloaded: there is no process to restart.
type Compiled struct {
	Name       string
	Register   func(Router) error
	ToolPrefix string
	Exposure   protocol.Exposure // "" = deferred
}

// CompiledIn is the source of the compiled-in plugins, in list order.
type CompiledIn []Compiled

// Name implements Source.
func (CompiledIn) Name() string { return "compiled-in plugins" }

// Discover implements Source.
func (c CompiledIn) Discover(context.Context) ([]Spec, error) {
	var specs []Spec
	for _, p := range c {
		s := Spec{Name: p.Name, Source: SourceCompiled, Origin: SourceCompiled, Register: p.Register,
			ToolPrefix: p.ToolPrefix, Exposure: p.Exposure}
		if err := checkName(p.Name); err != nil {
			s.Invalid = err
		} else if p.Register == nil {
			s.Invalid = fmt.Errorf("compiled-in plugin %q has no Register function", p.Name)
		}
		specs = append(specs, s)
	}
	return specs, nil
}

// Catalog is a remote plugin market's index — the seam SPEC §4.7 reserves.
// Discovery only: the sidecar downloads nothing; an entry describes a
// server already installed on this machine, in the manifest shape.
type Catalog interface {
	Entries(ctx context.Context) ([]CatalogEntry, error)
}

// CatalogEntry is one plugin a catalog offers: its name and manifest
// {command, args, env, ...}.
type CatalogEntry struct {
	Name     string
	Manifest json.RawMessage
}

// Remote is the source over a Catalog; its entries are checked like any
// manifest.
type Remote struct {
	Origin  string // the catalog's address, for PluginRecord.origin
	Catalog Catalog
	Decoder Decoder
}

// Name implements Source.
func (r Remote) Name() string { return "remote catalog " + r.Origin }

// Discover implements Source.
func (r Remote) Discover(ctx context.Context) ([]Spec, error) {
	entries, err := r.Catalog.Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("remote catalog %s: %w", r.Origin, err)
	}
	specs := make([]Spec, 0, len(entries))
	for _, e := range entries {
		specs = append(specs, r.Decoder.entry(e.Name, SourceRemote, r.Origin, r.Decoder.Workspace, e.Manifest))
	}
	return specs, nil
}
