package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/protocol"
)

func fixture(t *testing.T, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func search(t *testing.T, s *web.Searcher, r web.SearchRequest) (*web.SearchResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Search(ctx, r)
}

func newSearcher(t *testing.T, cfg web.Config, p web.Provider) *web.Searcher {
	s, err := web.NewSearcher(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTavily(t *testing.T) {
	var got map[string]any
	var auth string
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/search" {
			http.NotFound(w, r)
			return
		}
		auth = r.Header.Get("Authorization")
		_ = json.NewDecoder(r.Body).Decode(&got)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(fixture(t, "tavily_search.json"))
	}))
	cfg := testConfig()
	cfg.SearchKey, cfg.SearchBaseURL = "tvly-test", srv.URL+"/"
	cfg.BlockedDomains = []string{"ads.example.com"}
	p, err := web.NewProvider(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := search(t, newSearcher(t, cfg, p), web.SearchRequest{Query: "go landlock", MaxResults: 5, AllowedDomains: []string{"landlock.io", "pkg.go.dev", "ads.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	want := &web.SearchResponse{Query: "go landlock", Provider: "tavily", Dropped: 2, Results: []web.Result{
		{Title: "Landlock: unprivileged access control", URL: "https://landlock.io/", Snippet: "The goal of Landlock is to enable restriction of ambient rights (e.g. global filesystem or network access) for a set of processes."},
		{Title: "landlock package - github.com/landlock-lsm/go-landlock/landlock - Go Packages", URL: "https://pkg.go.dev/github.com/landlock-lsm/go-landlock/landlock", Snippet: "Package landlock restricts a Go program's ability to use files and networking."},
	}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if auth != "Bearer tvly-test" {
		t.Errorf("Authorization %q", auth)
	}
	wantReq := map[string]any{"query": "go landlock", "max_results": 5.0,
		"include_domains": []any{"landlock.io", "pkg.go.dev", "ads.example.com"}, "exclude_domains": []any{"ads.example.com"}}
	if diff := cmp.Diff(wantReq, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	// Without domain lists the request carries the query and the count and
	// nothing else, as the original's did.
	cfg.BlockedDomains, got = nil, nil
	if p, err = web.NewProvider(cfg, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := search(t, newSearcher(t, cfg, p), web.SearchRequest{Query: "go landlock"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"query": "go landlock", "max_results": 8.0}, got); diff != "" {
		t.Errorf("request without domain lists (-want +got):\n%s", diff)
	}
}

func TestTavilyErrors(t *testing.T) {
	for code, want := range map[int]string{
		401: "Tavily refused the API key (HTTP 401: Unauthorized: missing or invalid API key.); web search is unavailable until the user sets a valid key in STEERABLE_WEB_SEARCH_API_KEY",
		429: "rate or plan limit",
		432: "rate or plan limit",
		500: "Tavily answered HTTP 500",
	} {
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(code)
			_, _ = w.Write(fixture(t, "tavily_401.json"))
		}))
		s := newSearcher(t, testConfig(), web.NewTavily(srv.URL, "k", http.DefaultClient))
		if _, err := search(t, s, web.SearchRequest{Query: "q"}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d: %v", code, err)
		}
	}
	garbage := newServer(t, serveText("text/html", "<html>not json"))
	s := newSearcher(t, testConfig(), web.NewTavily(garbage.URL, "k", http.DefaultClient))
	if _, err := search(t, s, web.SearchRequest{Query: "q"}); err == nil || !strings.Contains(err.Error(), "not the expected JSON") {
		t.Errorf("garbage: %v", err)
	}
}

func TestDDG(t *testing.T) {
	var form url.Values
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		form = r.PostForm
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(fixture(t, "ddg_results.html"))
	}))
	cfg := testConfig()
	cfg.BlockedDomains = []string{"blocked.example"}
	s := newSearcher(t, cfg, web.NewDDG(srv.URL, http.DefaultClient))
	res, err := search(t, s, web.SearchRequest{Query: "go landlock", BlockedDomains: []string{"spam.example"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []web.Result{
		{Title: "Landlock: unprivileged access control", URL: "https://landlock.io/", Snippet: "The goal of Landlock is to enable restriction of ambient rights."},
		{Title: "landlock package - Go Packages", URL: "https://pkg.go.dev/github.com/landlock-lsm/go-landlock/landlock?tab=doc", Snippet: "Package landlock restricts a Go program's ability to use files & networking."},
	}
	if diff := cmp.Diff(want, res.Results); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if res.Dropped != 1 || res.Provider != "ddg" {
		t.Errorf("dropped %d provider %s", res.Dropped, res.Provider)
	}
	if q := form.Get("q"); q != "go landlock -site:blocked.example -site:spam.example" {
		t.Errorf("query sent: %q", q)
	}
}

func TestDDGBotCheckAndEmpty(t *testing.T) {
	for name, c := range map[string]struct {
		status  int
		fixture string
		err     error
	}{
		"bot check 202": {http.StatusAccepted, "ddg_botcheck.html", web.ErrBotCheck},
		"bot check 200": {http.StatusOK, "ddg_botcheck.html", web.ErrBotCheck},
		"no results":    {http.StatusOK, "ddg_noresults.html", nil},
	} {
		srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(c.status)
			_, _ = w.Write(fixture(t, c.fixture))
		}))
		res, err := search(t, newSearcher(t, testConfig(), web.NewDDG(srv.URL, http.DefaultClient)), web.SearchRequest{Query: "q"})
		if !errors.Is(err, c.err) {
			t.Errorf("%s: %v", name, err)
		}
		if c.err == nil && (res == nil || len(res.Results) != 0) {
			t.Errorf("%s: %+v", name, res)
		}
	}
}

// fakeHost answers web_search.request like a host would.
type fakeHost struct {
	params protocol.WebSearchRequestParams
	reply  protocol.WebSearchRequestResult
	err    error
}

func (h *fakeHost) WebSearch(_ context.Context, req protocol.WebSearchRequestParams) (protocol.WebSearchRequestResult, error) {
	if h.err != nil {
		return protocol.WebSearchRequestResult{}, h.err
	}
	h.params = req
	return h.reply, nil
}

func TestHostSearch(t *testing.T) {
	h := &fakeHost{reply: protocol.WebSearchRequestResult{Results: []protocol.SearchResult{
		{Title: "A", URL: "https://a.example/", Snippet: "a"},
		{Title: "B", URL: "https://b.example/", Snippet: "b"},
		{Title: "Local", URL: "http://blocked.example/", Snippet: "dropped"},
		{Title: "C", URL: "https://c.example/", Snippet: "c"},
	}}}
	cfg := testConfig()
	cfg.SearchProvider = "host"
	cfg.BlockedDomains = []string{"blocked.example"}
	p, err := web.NewProvider(cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	res, err := search(t, newSearcher(t, cfg, p), web.SearchRequest{Query: "q", MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"https://a.example/", "https://b.example/"}, urls(res.Results)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	want := protocol.WebSearchRequestParams{Query: "q", MaxResults: 2, AllowedDomains: []string{}, BlockedDomains: []string{"blocked.example"}}
	if diff := cmp.Diff(want, h.params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	h.err = &protocol.Error{Code: protocol.CodeMethodNotFound, Message: "method not found"}
	if _, err := search(t, newSearcher(t, cfg, p), web.SearchRequest{Query: "q"}); err == nil || !strings.Contains(err.Error(), "the host could not run the search (web_search.request)") {
		t.Errorf("host error: %v", err)
	}
}

func urls(rs []web.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.URL)
	}
	return out
}

// stubProvider returns fixed hits or blocks until the context ends.
type stubProvider struct {
	hits  []web.Result
	block bool
	seen  web.Query
}

func (s *stubProvider) Name() string { return "stub" }
func (s *stubProvider) Search(ctx context.Context, q web.Query) ([]web.Result, error) {
	s.seen = q
	if s.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.hits, nil
}

func TestSearcherBounds(t *testing.T) {
	var hits []web.Result
	for _, h := range []string{"a", "b", "c", "d", "e"} {
		hits = append(hits, web.Result{Title: "  " + h + "\n\t title ", URL: "https://" + h + ".example/", Snippet: strings.Repeat("s", 1500)})
	}
	cfg := testConfig()
	cfg.SearchMaxResults = 3
	cfg.AllowedDomains = []string{"example"}
	stub := &stubProvider{hits: hits}
	s := newSearcher(t, cfg, stub)

	res, err := search(t, s, web.SearchRequest{Query: "q", MaxResults: 50, AllowedDomains: []string{"b.example", "c.example"}, BlockedDomains: []string{"c.example"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"https://b.example/"}, urls(res.Results)); diff != "" {
		t.Errorf("call lists (-want +got):\n%s", diff)
	}
	if stub.seen.MaxResults != web.MaxSearchResults || cmp.Diff([]string{"b.example", "c.example"}, stub.seen.AllowedDomains) != "" || cmp.Diff([]string{"c.example"}, stub.seen.BlockedDomains) != "" {
		t.Errorf("provider saw %+v", stub.seen)
	}
	if r := res.Results[0]; r.Title != "b title" || len(r.Snippet) != 1000+len("…") {
		t.Errorf("not cleaned: %q (%d)", r.Title, len(r.Snippet))
	}
	res, _ = search(t, s, web.SearchRequest{Query: "q"})
	if len(res.Results) != 3 {
		t.Errorf("default max: %d", len(res.Results))
	}
	// The configured number is the default, not a ceiling: a call may ask
	// for more, up to MaxSearchResults.
	res, _ = search(t, s, web.SearchRequest{Query: "q", MaxResults: 5})
	if len(res.Results) != 5 || stub.seen.MaxResults != 5 {
		t.Errorf("asked for 5 with a default of 3: got %d, the provider was asked for %d", len(res.Results), stub.seen.MaxResults)
	}
	for _, bad := range []web.SearchRequest{{Query: ""}, {Query: strings.Repeat("q", 2001)}, {Query: "q", MaxResults: -1}, {Query: "q", AllowedDomains: []string{"bad host"}}} {
		if _, err := search(t, s, bad); !errors.Is(err, web.ErrBadQuery) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestSearcherCapAndTimeout(t *testing.T) {
	cfg := testConfig()
	cfg.SessionSearchCap = 1
	cfg.SearchTimeout = 100 * time.Millisecond
	s := newSearcher(t, cfg, &stubProvider{block: true})
	_, err := search(t, s, web.SearchRequest{Query: "q"})
	if err == nil || !strings.Contains(err.Error(), "timed out after 100ms (STEERABLE_WEB_SEARCH_TIMEOUT_MS)") {
		t.Errorf("timeout: %v", err)
	}
	_, err = search(t, s, web.SearchRequest{Query: "q"})
	if !errors.Is(err, web.ErrCapReached) || !strings.Contains(err.Error(), "limit of 1 web_search calls (STEERABLE_WEB_SESSION_SEARCH_CAP)") {
		t.Errorf("cap: %v", err)
	}
}

func TestNewProvider(t *testing.T) {
	cases := []struct {
		provider, key, base string
		want, err           string
	}{
		{"", "", "", "", "not configured"},
		{"", "k", "https://api.tavily.com", "tavily", ""},
		{"tavily", "", "", "", "tavily needs a key"},
		{"tavily", "k", "ftp://x", "", `STEERABLE_WEB_SEARCH_BASE_URL="ftp://x" is not an http(s) URL`},
		{"ddg", "", "", "ddg", ""},
		{"host", "", "", "host", ""},
		{"bing", "", "", "", `"bing" is not a provider`},
	}
	for _, c := range cases {
		cfg := testConfig()
		cfg.SearchProvider, cfg.SearchKey, cfg.SearchBaseURL = c.provider, c.key, c.base
		p, err := web.NewProvider(cfg, &fakeHost{})
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%+v: %v", c, err)
		case c.err == "" && (err != nil || p.Name() != c.want):
			t.Errorf("%+v: %v %v", c, p, err)
		}
	}
}

func TestSearchEgressConfined(t *testing.T) {
	cfg := testConfig()
	cfg.EgressConfined = true
	if _, err := search(t, newSearcher(t, cfg, &stubProvider{}), web.SearchRequest{Query: "q"}); !errors.Is(err, web.ErrEgressMisconfigured) {
		t.Errorf("in-sidecar provider: %v", err)
	}
	if _, err := search(t, newSearcher(t, cfg, web.NewHostSearch(&fakeHost{})), web.SearchRequest{Query: "q"}); err != nil {
		t.Errorf("host provider needs no egress: %v", err)
	}
}

func TestSearchThroughProxy(t *testing.T) {
	srv := newServer(t, serveText("application/json", string(fixture(t, "tavily_search.json"))))
	p := newTestProxy(t, srv.Listener.Addr().String(), "api.tavily.test")
	cfg := testConfig()
	cfg.SearchKey, cfg.SearchBaseURL, cfg.EgressConfined, cfg.HTTPProxy = "k", "http://api.tavily.test", true, p.URL
	prov, err := web.NewProvider(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := search(t, newSearcher(t, cfg, prov), web.SearchRequest{Query: "q"}); err != nil || len(res.Results) != 3 {
		t.Errorf("through the proxy: %v %v", res, err)
	}
	cfg.SearchBaseURL = "https://api.other.test"
	prov, _ = web.NewProvider(cfg, nil)
	_, err = search(t, newSearcher(t, cfg, prov), web.SearchRequest{Query: "q"})
	if !errors.Is(err, web.ErrProxyRefused) || !strings.Contains(err.Error(), "STEERABLE_WEB_ALLOWED_DOMAINS") {
		t.Errorf("refused by the proxy: %v", err)
	}
}

// TestSearcherBlankQuery: a query of blanks is refused before the provider
// and the session cap (web_search {query:"   "} never reaches the
// provider); a padded query is searched trimmed.
func TestSearcherBlankQuery(t *testing.T) {
	cfg := testConfig()
	cfg.SessionSearchCap = 1
	stub := &stubProvider{}
	s := newSearcher(t, cfg, stub)
	for _, q := range []string{" ", "   ", "\t\n\r", "\u00a0\u3000\u2003\u2009", "\u200b\ufeff\u2060", " \u200b ", "\x00\x1f"} {
		_, err := search(t, s, web.SearchRequest{Query: q})
		if !errors.Is(err, web.ErrBadQuery) || !strings.Contains(err.Error(), "the query is blank") || web.Kind(err) != "arguments" {
			t.Errorf("%q: %v; want the blank query refused", q, err)
		}
	}
	if stub.seen.Text != "" {
		t.Fatalf("the provider saw %q", stub.seen.Text)
	}
	res, err := search(t, s, web.SearchRequest{Query: " \tgo landlock\u3000\n"}) // the cap of 1 is still unused
	if err != nil {
		t.Fatal(err)
	}
	if stub.seen.Text != "go landlock" || res.Query != "go landlock" {
		t.Errorf("provider saw %q, response echoes %q; want both trimmed", stub.seen.Text, res.Query)
	}
	// Inner blanks and visible characters stay.
	if _, err := search(t, newSearcher(t, testConfig(), stub), web.SearchRequest{Query: "🚀\u200dx  y"}); err != nil || stub.seen.Text != "🚀\u200dx  y" {
		t.Errorf("non-blank query: %v, saw %q", err, stub.seen.Text)
	}
}
