package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/rs/zerolog"
)

// Formats of web_fetch's content.
const (
	FormatMarkdown = "markdown"
	FormatText     = "text"
	FormatRaw      = "raw"
)

// Page is a fetched page: the data of web_fetch (SPEC §4).
type Page struct {
	URL         string
	FinalURL    string
	Status      int
	ContentType string
	Bytes       int64 // body bytes read (decompressed, before conversion)
	Truncated   bool
	Content     string
	Warnings    []string
}

// Fetcher runs web_fetch: one per session (it holds the session's counter).
type Fetcher struct {
	cfg       Config
	policy    Policy
	egress    egress
	dialer    *pinnedDialer
	transport *http.Transport
	client    *http.Client
	cap       *Cap
	log       zerolog.Logger
}

// userAgent names the sidecar to the servers it fetches from.
const userAgent = "steerable-sidecar-web_fetch/1 (+https://steerable.dev)"

// NewFetcher builds a Fetcher. n is the zero Net in production.
func NewFetcher(cfg Config, n Net, log zerolog.Logger) (*Fetcher, error) {
	policy, eg, err := cfg.posture()
	if err != nil {
		return nil, err
	}
	d := &pinnedDialer{net: n.withDefaults(), log: log, proxies: eg.addrs}
	tr := &http.Transport{
		Proxy: func(r *http.Request) (*url.URL, error) {
			return eg.proxyFor(r.URL), nil
		},
		OnProxyConnectResponse: onProxyConnect,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
	}
	return &Fetcher{
		cfg: cfg, policy: policy, egress: eg, dialer: d, transport: tr, log: log,
		client: &http.Client{
			Transport: tr,
			// Redirects are followed by Fetch itself, hop by hop.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		cap: NewCap(cfg.SessionFetchCap, "web_fetch calls", VarFetchCap),
	}, nil
}

// Posture describes the egress posture, for checks.web.
func (f *Fetcher) Posture() string { return f.egress.Describe() }

// Policy is the domain policy in force, its lists canonical.
func (f *Fetcher) Policy() Policy { return f.policy }

// EgressProblem is the misconfiguration every call will report, if any.
func (f *Fetcher) EgressProblem() error { return f.egress.check() }

// Close drops idle connections.
func (f *Fetcher) Close() { f.transport.CloseIdleConnections() }

// Fetch runs the checks of SPEC §4.3 in order — egress posture, URL shape,
// domain policy, session cap — then, per hop, the address check (in the
// pinned dialer, or before the proxy) and the request.
func (f *Fetcher) Fetch(ctx context.Context, rawURL, format string) (*Page, error) {
	if err := f.egress.check(); err != nil {
		return nil, err
	}
	t, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if err := f.policy.Check(t.Host); err != nil {
		return nil, err
	}
	if err := f.cap.Admit(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, f.cfg.FetchTimeout, errFetchTimeout)
	defer cancel()
	resp, final, err := f.follow(ctx, t)
	if err != nil {
		return nil, f.explain(ctx, err, final, 0)
	}
	defer resp.Body.Close()
	page, err := f.read(ctx, resp, format, final.URL.String())
	if err != nil {
		return nil, f.explain(ctx, err, final, page.Bytes)
	}
	page.URL, page.FinalURL = t.URL.String(), final.URL.String()
	if (page.Status == http.StatusForbidden || page.Status == http.StatusProxyAuthRequired) && f.egress.proxyFor(final.URL) != nil {
		// A plain-http request through a forward proxy gets the proxy's
		// refusal as its response: indistinguishable from the origin's.
		page.Warnings = append(page.Warnings, (&ProxyError{Host: final.Host, Detail: fmt.Sprintf("HTTP %d through the proxy", page.Status)}).Error())
	}
	return page, nil
}

// follow sends the request and follows same-origin redirects, re-validating
// each hop; it returns the last response and its target.
func (f *Fetcher) follow(ctx context.Context, t Target) (*http.Response, Target, error) {
	for hop := 0; ; hop++ {
		resp, err := f.hop(ctx, t)
		if err != nil {
			return nil, t, err
		}
		if resp.StatusCode/100 != 3 {
			return resp, t, nil
		}
		discard(resp.Body)
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.StatusCode) || loc == "" {
			return nil, t, &StatusError{URL: t.URL.String(), Status: resp.StatusCode, Location: resolve(t, loc)}
		}
		next, err := f.redirect(t, loc)
		if err != nil {
			return nil, t, err
		}
		if hop >= f.cfg.FetchMaxRedirects {
			return nil, t, &RedirectLimitError{Limit: f.cfg.FetchMaxRedirects, Next: next.URL.String()}
		}
		t = next
	}
}

// hop fetches one validated target. Direct requests are checked by the
// pinned dialer; a request through the proxy is checked here first, since
// the proxy resolves the name itself.
func (f *Fetcher) hop(ctx context.Context, t Target) (*http.Response, error) {
	if f.egress.proxyFor(t.URL) != nil {
		if _, err := f.dialer.resolve(ctx, t.Host); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,*/*;q=0.5")
	return f.client.Do(req)
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redirect validates a Location: it must parse as a URL like any other,
// stay on the same origin, and pass the domain policy again.
func (f *Fetcher) redirect(from Target, loc string) (Target, error) {
	ref, err := url.Parse(loc)
	if err != nil {
		return Target{}, &URLError{URL: loc, Reason: "the server sent an unparseable redirect Location"}
	}
	abs := from.URL.ResolveReference(ref).String()
	next, err := ParseURL(abs)
	if err != nil {
		return Target{}, err
	}
	if next.Origin() != from.Origin() {
		return Target{}, &RedirectError{From: from.URL.String(), To: next.URL.String()}
	}
	if err := f.policy.Check(next.Host); err != nil {
		return Target{}, err
	}
	return next, nil
}

// resolve makes a Location absolute against the URL it came from; one that
// does not parse is dropped ("").
func resolve(from Target, loc string) string {
	ref, err := url.Parse(loc)
	if err != nil || loc == "" {
		return ""
	}
	return from.URL.ResolveReference(ref).String()
}

// discard drains a little of a redirect's body so the connection can be
// reused, then closes it.
func discard(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	body.Close()
}

// RedirectError is a cross-origin redirect, reported and not followed: the
// model re-issues the call against the new origin (and an approval prompt
// names it).
type RedirectError struct{ From, To string }

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirects to another origin, %s; it was not followed: call web_fetch with that URL if you want it", e.From, e.To)
}

// StatusError is a 3xx response that is no page and no redirect web_fetch
// can follow (RFC 9110 §15.4): a redirect without a Location, 300 Multiple
// Choices, 304 Not Modified (web_fetch never asks conditionally), the
// obsolete 305 and 306, and codes RFC 9110 does not define.
type StatusError struct {
	URL      string
	Status   int
	Location string // absolute; "" when absent or unparseable
}

func (e *StatusError) Error() string {
	code := fmt.Sprintf("HTTP %d", e.Status)
	if text := http.StatusText(e.Status); text != "" {
		code += " (" + text + ")"
	}
	switch {
	case isRedirect(e.Status):
		return fmt.Sprintf("%s answered %s without a Location header: it redirects but does not say where, so there is no page to return; try another URL of the site or another source", e.URL, code)
	case e.Status == http.StatusMultipleChoices && e.Location != "":
		return fmt.Sprintf("%s answered %s: it offers several representations instead of a page; its preferred one is %s: call web_fetch with that URL", e.URL, code, e.Location)
	case e.Status == http.StatusMultipleChoices:
		return fmt.Sprintf("%s answered %s: it offers several representations instead of a page and names none; try a more specific URL", e.URL, code)
	case e.Status == http.StatusNotModified:
		return fmt.Sprintf("%s answered %s although web_fetch sent no conditional request: the response holds no page; try again later or another source", e.URL, code)
	}
	return fmt.Sprintf("%s answered %s, a redirection web_fetch cannot follow; the response holds no page", e.URL, code)
}

// RedirectLimitError is a chain longer than fetch_max_redirects.
type RedirectLimitError struct {
	Limit int
	Next  string
}

func (e *RedirectLimitError) Error() string {
	return fmt.Sprintf("too many redirects: more than %d (%s); the chain continues to %s, possibly a loop", e.Limit, VarFetchRedirects, e.Next)
}

var errFetchTimeout = errors.New("fetch timeout")

// TimeoutError is a fetch that ran past fetch_timeout_ms.
type TimeoutError struct {
	After    time.Duration
	Received int64
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the fetch timed out after %v (%s) with %d body bytes received; the server is slow or endless, try again later or another source",
		e.After, VarFetchTimeout, e.Received)
}

// explain turns transport errors into the errors web_fetch reports.
func (f *Fetcher) explain(ctx context.Context, err error, t Target, received int64) error {
	if context.Cause(ctx) == errFetchTimeout {
		return &TimeoutError{After: f.cfg.FetchTimeout, Received: received}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, known := range []error{ErrAddressRefused, ErrProxyRefused, ErrDomainRefused, ErrBadURL, ErrNoAddress} {
		if errors.Is(err, known) {
			return unwrapURL(err)
		}
	}
	if pe := proxyFailure(err, t.Host); pe != nil {
		return pe
	}
	var re *RedirectError
	var rl *RedirectLimitError
	var ce *ContentError
	var se *StatusError
	if errors.As(err, &re) || errors.As(err, &rl) || errors.As(err, &ce) || errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("fetching %s failed: %v", t.URL, unwrapURL(err))
}

// unwrapURL drops net/http's "Get \"url\": " prefix: the model knows the URL.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
