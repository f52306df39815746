package main

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/protocol"
)

// webConfig maps the process Config onto the web package's settings.
func webConfig(c config.Web) web.Config {
	return web.Config{
		FetchTimeout:      time.Duration(c.FetchTimeoutMs) * time.Millisecond,
		FetchMaxBytes:     int64(c.FetchMaxBytes),
		FetchMaxRedirects: c.FetchMaxRedirects,
		SearchTimeout:     time.Duration(c.SearchTimeoutMs) * time.Millisecond,
		SearchMaxResults:  c.SearchMaxResults,
		SessionSearchCap:  c.SessionSearchCap,
		SessionFetchCap:   c.SessionFetchCap,
		AllowedDomains:    c.AllowedDomains,
		BlockedDomains:    c.BlockedDomains,
		SearchProvider:    c.SearchProvider,
		SearchKey:         c.SearchKey(),
		SearchBaseURL:     c.SearchBaseURL,
		EgressConfined:    c.EgressConfined,
		HTTPSProxy:        c.HTTPSProxy,
		HTTPProxy:         c.HTTPProxy,
		NoProxy:           c.NoProxy,
	}
}

// buildWeb fills the web tools of deps and sets checks.web. A web
// misconfiguration that config's ranges cannot see (a bad domain entry or
// proxy URL, tavily without a key) is a boot error in strict posture; in
// serve posture it is logged and the pair is left out (SPEC §4.3).
func (a *app) buildWeb(deps *tools.Deps, host tools.Host) error {
	w := a.cfg.Web
	if w.Disabled != "" {
		if _, set := a.checks["web"]; !set {
			a.checks["web"] = protocol.Check{Status: protocol.CheckOK, Message: "web tools not registered: " + w.Disabled}
		}
		return nil
	}
	cfg := webConfig(w)
	fetcher, searcher, searchNote, err := newWebTools(cfg, host, a)
	if err != nil {
		if a.strict {
			return &bootError{"invalid web configuration: " + err.Error()}
		}
		a.log.Error().Err(err).Msg("invalid web configuration; serving without web_fetch and web_search")
		a.checks["web"] = protocol.Check{Status: protocol.CheckError, Message: "web tools not registered: " + err.Error()}
		return nil
	}
	deps.WebFetcher, deps.WebSearcher = fetcher, searcher
	deps.Downloader = downloader(exec.LookPath)
	a.webFetcher = fetcher
	a.checks["web"] = webCheck(cfg, fetcher, searchNote)
	return nil
}

// newWebTools builds the fetcher and, when a provider is configured, the
// searcher; searchNote says which provider or why none.
func newWebTools(cfg web.Config, host tools.Host, a *app) (*web.Fetcher, *web.Searcher, string, error) {
	fetcher, err := web.NewFetcher(cfg, web.Net{}, a.log.With().Str("component", "web").Logger())
	if err != nil {
		return nil, nil, "", err
	}
	provider, err := web.NewProvider(cfg, host)
	if errors.Is(err, web.ErrNoProvider) {
		return fetcher, nil, "web_search not registered (no STEERABLE_WEB_SEARCH_API_KEY, TAVILY_API_KEY or STEERABLE_WEB_SEARCH_PROVIDER)", nil
	}
	if err != nil {
		fetcher.Close()
		return nil, nil, "", err
	}
	searcher, err := web.NewSearcher(cfg, provider)
	if err != nil {
		fetcher.Close()
		return nil, nil, "", err
	}
	return fetcher, searcher, "web_search via " + provider.Name(), nil
}

// webCheck is checks.web of a registered pair: error when every call will
// fail (confined without a proxy), warn when the proxy will refuse most
// fetches (confined with an empty allow-list), else ok with the posture.
// The allow-list is the canonical one the policy enforces (an entry list of
// blanks is empty).
func webCheck(cfg web.Config, f *web.Fetcher, searchNote string) protocol.Check {
	if err := f.EgressProblem(); err != nil {
		return protocol.Check{Status: protocol.CheckError, Message: "web tools will fail every call: " + err.Error()}
	}
	msg := fmt.Sprintf("web_fetch registered; %s; %s", searchNote, f.Posture())
	allowed := f.Policy().Allowed
	if len(allowed) > 0 {
		msg += "; allowed domains: " + strings.Join(allowed, ", ")
	}
	if cfg.EgressConfined && len(allowed) == 0 {
		return protocol.Check{Status: protocol.CheckWarn, Message: msg +
			"; STEERABLE_WEB_ALLOWED_DOMAINS is empty, and the egress proxy cannot admit 'any public host', so fetches will be refused at the proxy"}
	}
	return protocol.Check{Status: protocol.CheckOK, Message: msg}
}

// downloaders are the command-line tools web_fetch's refusal of a binary
// body may point bash at, in order of preference.
var downloaders = []string{"curl", "wget", "python3"}

// downloader is the first of downloaders on PATH, or "" (the slim Docker
// image, for one, has python3 but neither curl nor wget). bash's children
// get this PATH and see the same file system, read-only.
func downloader(lookPath func(string) (string, error)) string {
	for _, name := range downloaders {
		if _, err := lookPath(name); err == nil {
			return name
		}
	}
	return ""
}
