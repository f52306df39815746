package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// DDGBaseURL is DuckDuckGo's HTML results endpoint (no JavaScript, no key).
const DDGBaseURL = "https://html.duckduckgo.com"

// DDG is the explicit free backend: DuckDuckGo's HTML results page, parsed
// with a real HTML parser (never a silent fallback for a missing Tavily key).
type DDG struct {
	base   string
	client *http.Client
}

// NewDDG returns the DuckDuckGo backend at base.
func NewDDG(base string, client *http.Client) *DDG { return &DDG{base: base, client: client} }

// Name implements Provider.
func (*DDG) Name() string { return ProviderDDG }

// ErrBotCheck means DuckDuckGo answered with its anomaly (bot) challenge
// instead of results.
var ErrBotCheck = errors.New("DuckDuckGo answered with a bot check instead of results; try again in a few minutes, " +
	"or ask the user to configure Tavily (STEERABLE_WEB_SEARCH_API_KEY)")

// Search implements Provider. Domain lists become site: operators.
func (d *DDG) Search(ctx context.Context, q Query) ([]Result, error) {
	form := url.Values{"q": {ddgQuery(q)}, "kl": {"wt-wt"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.base+"/html/", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; steerable-sidecar)")
	status, raw, err := roundTrip("DuckDuckGo", d.client, req)
	if err != nil {
		return nil, err
	}
	doc, err := html.Parse(strings.NewReader(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("the DuckDuckGo page does not parse: %v", err)
	}
	if isBotCheck(doc) {
		return nil, ErrBotCheck
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("DuckDuckGo answered HTTP %d; try again later", status)
	}
	hits := parseDDG(doc)
	return hits[:min(len(hits), q.MaxResults)], nil
}

// ddgQuery adds the domain lists as site: operators.
func ddgQuery(q Query) string {
	parts := []string{q.Text}
	var sites []string
	for _, d := range q.AllowedDomains {
		sites = append(sites, "site:"+d)
	}
	if len(sites) > 0 {
		parts = append(parts, "("+strings.Join(sites, " OR ")+")")
	}
	for _, d := range q.BlockedDomains {
		parts = append(parts, "-site:"+d)
	}
	return strings.Join(parts, " ")
}

// parseDDG extracts the organic results: div.result (not result--ad), the
// link a.result__a and the snippet .result__snippet.
func parseDDG(doc *html.Node) []Result {
	var out []Result
	walk(doc, func(n *html.Node) bool {
		if !isElem(n, atom.Div) || !hasClass(n, "result") {
			return true
		}
		if hasClass(n, "result--ad") {
			return false
		}
		var r Result
		walk(n, func(c *html.Node) bool {
			switch {
			case isElem(c, atom.A) && hasClass(c, "result__a"):
				r.Title, r.URL = textOf(c), unwrapDDG(attr(c, "href"))
			case hasClass(c, "result__snippet"):
				r.Snippet = textOf(c)
			}
			return true
		})
		if r.URL != "" && r.Title != "" {
			out = append(out, r)
		}
		return false
	})
	return out
}

// unwrapDDG turns DuckDuckGo's redirect link (//duckduckgo.com/l/?uddg=…)
// into the target URL; other http(s) links pass, anything else is dropped.
func unwrapDDG(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(u.Hostname(), "duckduckgo.com") && strings.HasPrefix(u.Path, "/l/") {
		if target := u.Query().Get("uddg"); target != "" {
			return unwrapDDG(target)
		}
		return ""
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

// isBotCheck recognises the anomaly page: its challenge form or modal.
func isBotCheck(doc *html.Node) bool {
	found := false
	walk(doc, func(n *html.Node) bool {
		if n.Type == html.ElementNode && (attr(n, "id") == "challenge-form" || strings.Contains(attr(n, "class"), "anomaly-modal")) {
			found = true
		}
		return !found
	})
	return found
}

// walk visits n and its descendants in document order; fn returning false
// skips a node's children. Iterative: page depth cannot exhaust the stack.
func walk(n *html.Node, fn func(*html.Node) bool) {
	stack := []*html.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !fn(n) {
			continue
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
}

func isElem(n *html.Node, a atom.Atom) bool { return n.Type == html.ElementNode && n.DataAtom == a }

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	if n.Type != html.ElementNode {
		return false
	}
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

var _ Provider = (*DDG)(nil)
