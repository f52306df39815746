package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Tavily is the default search backend: POST {base}/search with a bearer
// key (STEERABLE_WEB_SEARCH_API_KEY or TAVILY_API_KEY, never the chat key;
// tools-spec "Provider seam"). Domain lists go natively as
// include_domains/exclude_domains, so ranking happens inside the policy.
type Tavily struct {
	base   string
	key    string
	client *http.Client
}

// NewTavily returns the Tavily backend at base (no trailing slash).
func NewTavily(base, key string, client *http.Client) *Tavily {
	return &Tavily{base: base, key: key, client: client}
}

// Name implements Provider.
func (*Tavily) Name() string { return ProviderTavily }

type tavilyRequest struct {
	Query          string   `json:"query"`
	MaxResults     int      `json:"max_results"`
	IncludeDomains []string `json:"include_domains,omitempty"`
	ExcludeDomains []string `json:"exclude_domains,omitempty"`
}

type tavilyResponse struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

// Search implements Provider.
func (t *Tavily) Search(ctx context.Context, q Query) ([]Result, error) {
	body, _ := json.Marshal(tavilyRequest{
		Query: q.Text, MaxResults: q.MaxResults,
		IncludeDomains: q.AllowedDomains, ExcludeDomains: q.BlockedDomains,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.base+"/search", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.key)
	req.Header.Set("User-Agent", userAgent)
	status, raw, err := roundTrip("Tavily", t.client, req)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, tavilyStatus(status, raw)
	}
	var out tavilyResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("the Tavily answer is not the expected JSON: %v", err)
	}
	hits := make([]Result, 0, len(out.Results))
	for _, r := range out.Results {
		hits = append(hits, Result{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return hits, nil
}

// tavilyStatus explains Tavily's error answers
// ({"detail":{"error":"..."}}) with the fix for each.
func tavilyStatus(code int, raw []byte) error {
	var e struct {
		Detail struct {
			Error string `json:"error"`
		} `json:"detail"`
	}
	_ = json.Unmarshal(raw, &e)
	detail := e.Detail.Error
	if detail == "" {
		detail = clean(string(raw), 200)
	}
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("Tavily refused the API key (HTTP %d: %s); web search is unavailable until the user sets a valid key in %s", code, detail, VarSearchKey)
	case http.StatusTooManyRequests, 432, 433:
		//lint:ignore ST1005 "Tavily" is a proper noun and the message a sentence the model reads whole
		return fmt.Errorf("Tavily's rate or plan limit was reached (HTTP %d: %s); try again later", code, detail)
	case http.StatusBadRequest:
		return fmt.Errorf("Tavily rejected the search (HTTP 400: %s); rephrase the query or drop the domain lists", detail)
	}
	return fmt.Errorf("Tavily answered HTTP %d (%s); try again later", code, detail)
}

var _ Provider = (*Tavily)(nil)
