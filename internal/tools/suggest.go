package tools

import (
	"steerable.dev/sidecar/internal/spelling"
	"steerable.dev/sidecar/protocol"
)

// maxSuggestions is how many names an unknown-tool result offers.
const maxSuggestions = 3

// Suggest returns up to three registered, non-hidden tool names closest to
// name by edit distance; names further than half their length away are not
// suggestions. Hidden tools are never named (tools-spec "Exposure tiers").
func (r *Registry) Suggest(name string) []string {
	var names []string
	for _, d := range r.Descriptors() {
		if d.Exposure != protocol.ExposureHidden {
			names = append(names, d.Name)
		}
	}
	return spelling.Suggest(name, names, maxSuggestions)
}
