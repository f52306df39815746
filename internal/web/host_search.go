package web

import (
	"context"
	"fmt"

	"steerable.dev/sidecar/protocol"
)

// HostSearch runs the search in the host: the reverse request
// web_search.request (SPEC §2), for hosts that search with their own
// credential (STEERABLE_WEB_SEARCH_PROVIDER=host).
type HostSearch struct{ host HostSearcher }

// NewHostSearch returns the host backend over the reverse channel.
func NewHostSearch(host HostSearcher) *HostSearch { return &HostSearch{host: host} }

// Name implements Provider.
func (*HostSearch) Name() string { return ProviderHost }

// Search implements Provider.
func (h *HostSearch) Search(ctx context.Context, q Query) ([]Result, error) {
	params := protocol.WebSearchRequestParams{
		Query: q.Text, MaxResults: q.MaxResults,
		AllowedDomains: nonNil(q.AllowedDomains), BlockedDomains: nonNil(q.BlockedDomains),
	}
	res, err := h.host.WebSearch(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("the host could not run the search (%s): %v", protocol.MethodWebSearchRequest, err)
	}
	hits := make([]Result, 0, len(res.Results))
	for _, r := range res.Results {
		hits = append(hits, Result{Title: r.Title, URL: r.URL, Snippet: r.Snippet})
	}
	return hits, nil
}

// nonNil keeps the wire's arrays arrays (the schema requires them).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

var _ Provider = (*HostSearch)(nil)
