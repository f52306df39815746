package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"steerable.dev/sidecar/protocol"
)

// Provider is one web search backend (tools-spec "Provider seam": a
// protocol, a default factory, and explicit injection, so the backend
// changes without touching the tool).
type Provider interface {
	Name() string
	// Search returns at most q.MaxResults hits. The domain lists are hints
	// for backends that filter natively; the Searcher filters afterwards
	// whatever the backend did.
	Search(ctx context.Context, q Query) ([]Result, error)
}

// Query is one search as a provider sees it.
type Query struct {
	Text           string
	MaxResults     int
	AllowedDomains []string
	BlockedDomains []string
}

// Result is one hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// HostSearcher is the part of the reverse channel to the host that runs a
// search; tools.Host satisfies it.
type HostSearcher interface {
	WebSearch(ctx context.Context, req protocol.WebSearchRequestParams) (protocol.WebSearchRequestResult, error)
}

// Provider names.
const (
	ProviderTavily = "tavily"
	ProviderDDG    = "ddg"
	ProviderHost   = "host"
)

// ErrNoProvider means web_search is not configured: no key and no explicit
// provider, so the tool is not registered (SPEC §4.3).
var ErrNoProvider = errors.New("web_search is not configured: set STEERABLE_WEB_SEARCH_API_KEY (or TAVILY_API_KEY) for Tavily, " +
	"or STEERABLE_WEB_SEARCH_PROVIDER=ddg or host")

// NewProvider is the default factory: the explicit provider, else Tavily
// when a key is set, else ErrNoProvider. host serves the "host" provider.
func NewProvider(cfg Config, host HostSearcher) (Provider, error) {
	name := cfg.SearchProvider
	if name == "" {
		if cfg.SearchKey == "" {
			return nil, ErrNoProvider
		}
		name = ProviderTavily
	}
	switch name {
	case ProviderTavily:
		if cfg.SearchKey == "" {
			return nil, fmt.Errorf("%s=tavily needs a key: set %s (or TAVILY_API_KEY)", VarSearchProvider, VarSearchKey)
		}
		base, err := url.Parse(cfg.SearchBaseURL)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return nil, fmt.Errorf("%s=%q is not an http(s) URL", VarSearchBaseURL, cfg.SearchBaseURL)
		}
		_, eg, err := cfg.posture()
		if err != nil {
			return nil, err
		}
		return NewTavily(strings.TrimSuffix(base.String(), "/"), cfg.SearchKey, eg.client()), nil
	case ProviderDDG:
		_, eg, err := cfg.posture()
		if err != nil {
			return nil, err
		}
		return NewDDG(DDGBaseURL, eg.client()), nil
	case ProviderHost:
		return NewHostSearch(host), nil
	}
	return nil, fmt.Errorf("%s=%q is not a provider: use tavily, ddg or host", VarSearchProvider, name)
}

// client is the HTTP client of the search backends. Their endpoints are
// configuration, not model input, so no address policy applies; the egress
// proxy does.
func (e egress) client() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                  func(r *http.Request) (*url.URL, error) { return e.proxyFor(r.URL), nil },
		OnProxyConnectResponse: onProxyConnect,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		IdleConnTimeout:        30 * time.Second,
	}}
}

// maxSearchBody bounds what a search backend's answer may push into the
// process.
const maxSearchBody = 8 << 20

// roundTrip sends a backend request and reads its answer, at most
// maxSearchBody bytes; errors name the backend.
func roundTrip(backend string, client *http.Client, req *http.Request) (int, []byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, searchTransportError(backend, req, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchBody+1))
	if err == nil && len(b) > maxSearchBody {
		err = fmt.Errorf("the answer is larger than %d bytes", maxSearchBody)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("reading the %s answer: %v", backend, err)
	}
	return resp.StatusCode, b, nil
}

// clean collapses whitespace and bounds a title or snippet.
func clean(s string, limit int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// searchTransportError explains a failed request to a backend; a proxy
// refusal names STEERABLE_WEB_ALLOWED_DOMAINS like web_fetch's.
func searchTransportError(backend string, req *http.Request, err error) error {
	if ctxErr := req.Context().Err(); ctxErr != nil {
		return err
	}
	var pe *ProxyError
	if errors.As(err, &pe) {
		return pe
	}
	if pe := proxyFailure(err, req.URL.Hostname()); pe != nil {
		return pe
	}
	return fmt.Errorf("%s could not be reached: %v; try again later", backend, unwrapURL(err))
}
