package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/protocol"
)

type webSearchArgs struct {
	Query          string   `json:"query"`
	MaxResults     int      `json:"max_results"`
	AllowedDomains []string `json:"allowed_domains"`
	BlockedDomains []string `json:"blocked_domains"`
}

const webSearchSchema = `{"type":"object","properties":{
"query":{"type":"string","minLength":1,"description":"the search query"},
"max_results":{"type":"integer","minimum":1,"description":"how many results to return (default: the configured STEERABLE_WEB_SEARCH_MAX_RESULTS; at most 20)"},
"allowed_domains":{"type":"array","items":{"type":"string"},"description":"only return results from these domains (and their subdomains)"},
"blocked_domains":{"type":"array","items":{"type":"string"},"description":"never return results from these domains (and their subdomains)"}},
"required":["query"],"additionalProperties":false}`

// WebSearch is web_search (SPEC §4.3) over the configured provider.
func WebSearch(s *web.Searcher) Tool {
	return New(protocol.ToolDescriptor{
		Name: "web_search",
		Description: "Search the web and return result titles, URLs and snippets. " +
			"Use web_fetch on a result's URL to read the page.",
		Mode: protocol.ModeRead, Exposure: protocol.ExposureDirect,
		Parameters: json.RawMessage(webSearchSchema),
	}, func(ctx context.Context, _ Call, a webSearchArgs) protocol.ToolResult {
		res, err := s.Search(ctx, web.SearchRequest{
			Query: a.Query, MaxResults: a.MaxResults,
			AllowedDomains: a.AllowedDomains, BlockedDomains: a.BlockedDomains,
		})
		if err != nil {
			return webFailure("web_search", err, map[string]any{"query": a.Query, "provider": s.Provider()})
		}
		msg := fmt.Sprintf("%d results from %s", len(res.Results), res.Provider)
		if len(res.Results) == 0 {
			msg = "no results; try other words"
		}
		return OK(msg, map[string]any{"query": res.Query, "results": res.Results, "provider": res.Provider})
	})
}
