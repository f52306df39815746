package tools

import (
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/web"
)

// Deps is what the built-in tools need from the process. cmd fills it from
// the Config; tools never read the environment.
type Deps struct {
	Workspace string // absolute, symlinks resolved
	Host      Host
	Log       zerolog.Logger

	// Web tools: nil leaves the tool out (--no-web-tools, a bad web
	// variable in serve posture, no search provider configured).
	WebFetcher  *web.Fetcher
	WebSearcher *web.Searcher
}

// Builtins is the explicit list of built-in tools, registered with source
// "builtin". Tools that are not configured are simply left out, so a host
// that builds its list from tool.list never advertises a broken tool.
func Builtins(d Deps) []Tool {
	var out []Tool
	if d.WebFetcher != nil {
		out = append(out, WebFetch(d.WebFetcher))
	}
	if d.WebSearcher != nil {
		out = append(out, WebSearch(d.WebSearcher))
	}
	return out
}
