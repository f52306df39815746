package web

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// SearchRequest is one web_search call.
type SearchRequest struct {
	Query          string
	MaxResults     int // 0: the configured search_max_results
	AllowedDomains []string
	BlockedDomains []string
}

// SearchResponse is the data of web_search (SPEC §4).
type SearchResponse struct {
	Query    string
	Results  []Result
	Provider string
	Dropped  int // hits the domain policy removed
}

// Searcher runs web_search: bounds, the session cap, the provider under the
// search timeout, then the domain policy on every hit.
type Searcher struct {
	cfg      Config
	provider Provider
	policy   Policy
	egress   egress
	cap      *Cap
}

// NewSearcher wraps a provider (from NewProvider, or injected).
func NewSearcher(cfg Config, p Provider) (*Searcher, error) {
	policy, eg, err := cfg.posture()
	if err != nil {
		return nil, err
	}
	return &Searcher{cfg: cfg, provider: p, policy: policy, egress: eg,
		cap: NewCap(cfg.SessionSearchCap, "web_search calls", VarSearchCap)}, nil
}

// Provider is the backend's name.
func (s *Searcher) Provider() string { return s.provider.Name() }

// ErrBadQuery is wrapped by refusals of the call's own arguments.
var ErrBadQuery = errors.New("invalid search")

// Search runs one search.
func (s *Searcher) Search(ctx context.Context, r SearchRequest) (*SearchResponse, error) {
	if s.provider.Name() != ProviderHost {
		if err := s.egress.check(); err != nil {
			return nil, err
		}
	}
	q, callPolicy, err := s.query(r)
	if err != nil {
		return nil, err
	}
	if err := s.cap.Admit(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, s.cfg.SearchTimeout, errSearchTimeout)
	defer cancel()
	hits, err := s.provider.Search(ctx, q)
	if err != nil {
		if context.Cause(ctx) == errSearchTimeout {
			return nil, &SearchTimeoutError{Provider: s.provider.Name(), After: s.cfg.SearchTimeout}
		}
		return nil, err
	}
	out := &SearchResponse{Query: q.Text, Provider: s.provider.Name(), Results: []Result{}}
	for _, h := range hits {
		if s.policy.CheckURL(h.URL) != nil || callPolicy.CheckURL(h.URL) != nil {
			out.Dropped++
			continue
		}
		if len(out.Results) < q.MaxResults {
			out.Results = append(out.Results, Result{Title: clean(h.Title, 300), URL: h.URL, Snippet: clean(h.Snippet, 1000)})
		}
	}
	return out, nil
}

var errSearchTimeout = errors.New("search timeout")

// SearchTimeoutError is a search that ran past search_timeout_ms.
type SearchTimeoutError struct {
	Provider string
	After    time.Duration
}

func (e *SearchTimeoutError) Error() string {
	return fmt.Sprintf("the %s search timed out after %v (%s); try again or narrow the query", e.Provider, e.After, VarSearchTimeout)
}

func (e *SearchTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// MaxSearchResults is the most results one web_search call may ask for;
// search_max_results is what a call gets when it names no number.
const MaxSearchResults = 20

// query validates the call and builds what the provider sees: max_results
// (search_max_results by default, at most MaxSearchResults), the call's
// domain lists checked, and the
// lists the provider may apply natively (the call's allow-list, else the
// configured one; both block-lists).
func (s *Searcher) query(r SearchRequest) (Query, Policy, error) {
	text := strings.TrimFunc(r.Query, isBlank)
	if text == "" {
		return Query{}, Policy{}, fmt.Errorf("%w: the query is blank (%d characters of white space); pass the words to search for", ErrBadQuery, utf8.RuneCountInString(r.Query))
	}
	if len(text) > 2000 {
		return Query{}, Policy{}, fmt.Errorf("%w: the query must be 1..2000 bytes, got %d", ErrBadQuery, len(text))
	}
	n := r.MaxResults
	switch {
	case n < 0:
		return Query{}, Policy{}, fmt.Errorf("%w: max_results must be at least 1", ErrBadQuery)
	case n == 0:
		n = s.cfg.SearchMaxResults
	case n > MaxSearchResults:
		n = MaxSearchResults
	}
	call, err := NewPolicy(r.AllowedDomains, r.BlockedDomains, "allowed_domains", "blocked_domains")
	if err != nil {
		return Query{}, Policy{}, fmt.Errorf("%w: %v", ErrBadQuery, err)
	}
	allowed := call.Allowed
	if len(allowed) == 0 {
		allowed = s.policy.Allowed
	}
	return Query{
		Text: text, MaxResults: n,
		AllowedDomains: append([]string{}, allowed...),
		BlockedDomains: append(append([]string{}, s.policy.Blocked...), call.Blocked...),
	}, call, nil
}

// isBlank reports characters a query made only of is blank: white space
// (tabs, NBSP, ideographic space) and invisible format or control
// characters (U+200B, U+FEFF), which no provider can search for.
func isBlank(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Cc)
}
