package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"steerable.dev/sidecar/internal/toolsearch"
	"steerable.dev/sidecar/protocol"
)

// toolSearchName is the discovery tool of the deferred tier.
const toolSearchName = "tool_search"

// maxQueryChars bounds a query (tool_contract.json "toolSearch"): a query is
// a few keywords, and a long one is a model pasting text by mistake.
const maxQueryChars = 1000

var toolSearchParams = json.RawMessage(`{"type":"object","properties":{` +
	`"query":{"type":"string","description":"A few keywords describing the tool you need, e.g. \"create calendar event\"."},` +
	`"max_results":{"type":"integer","description":"How many matches to return: default 8, at most 20."}},` +
	`"required":["query"],"additionalProperties":false}`)

// ToolSearch is tool_search (SPEC §4.4): BM25 over the deferred tier of the
// registry it was built with. It is a direct, read-mode tool, so it is never
// in the tier it searches. The index is built on the first search, off the
// boot path, and from then on follows every registry change synchronously:
// a search after host_tools.register has replied sees the new tools.
type ToolSearch struct {
	Tool
	reg *Registry
	mu  sync.Mutex // serialises building and updates
	idx atomic.Pointer[toolsearch.Index]
}

type toolSearchArgs struct {
	Query      string   `json:"query"`
	MaxResults *float64 `json:"max_results"` // a float, so a huge value clamps instead of failing to decode
}

// SearchMatch is one match: a full descriptor, callable next round.
type SearchMatch struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Score       float64         `json:"score"`
}

// NewToolSearch returns tool_search wired to reg: it observes reg's changes
// and searches reg's deferred tools.
func NewToolSearch(reg *Registry) *ToolSearch {
	ts := &ToolSearch{reg: reg}
	ts.Tool = New(protocol.ToolDescriptor{
		Name: toolSearchName,
		Description: "Search the deferred tools — tools that exist but are not in your tool list — by keywords " +
			"over their names and descriptions. Returns the best matches (BM25) with their full parameter schemas; " +
			"call a match by its name next.",
		Parameters: toolSearchParams,
		Mode:       protocol.ModeRead,
		Exposure:   protocol.ExposureDirect,
	}, ts.run)
	reg.Observe(ts.observe)
	return ts
}

// Searches reports whether ts ranks reg's deferred tier: the progressive
// strategy offers tool_search only when it does.
func (ts *ToolSearch) Searches(reg *Registry) bool { return ts.reg == reg }

func (ts *ToolSearch) run(_ context.Context, _ Call, a toolSearchArgs) protocol.ToolResult {
	limit, refused := searchLimit(a.MaxResults)
	if refused != nil {
		return *refused
	}
	query := strings.TrimSpace(a.Query)
	if n := utf8.RuneCountInString(a.Query); n > maxQueryChars {
		return Followup("query is %d characters long; tool_search takes at most %d: pass a few keywords that describe the tool you need", n, maxQueryChars)
	}
	if query == "" {
		return Followup("query is empty: pass a few keywords that describe the tool you need, e.g. \"create calendar event\"")
	}
	idx, err := ts.index()
	if err != nil {
		return Terminal("tool_search is unavailable: %v", err)
	}
	res := idx.Search(query, limit)
	if len(res.Terms) == 0 {
		return Followup("query %q has no letters or digits to search for: pass keywords that describe the tool you need", query)
	}
	matches := ts.matches(res.Hits)
	msg := fmt.Sprintf("%d of %d deferred tools match %q; call a match by its name", len(matches), res.N, query)
	if len(matches) == 0 {
		msg = fmt.Sprintf("no deferred tool (of %d) matches %q; try other keywords", res.N, query)
	}
	return OK(msg, map[string]any{"matches": matches, "deferredCount": res.N})
}

// searchLimit applies the default (8) and the ceiling (20).
func searchLimit(v *float64) (int, *protocol.ToolResult) {
	if v == nil {
		return toolsearch.DefaultLimit, nil
	}
	if *v < 1 {
		r := Followup("max_results is %v; it must be at least 1 (default %d, at most %d)", *v, toolsearch.DefaultLimit, toolsearch.MaxLimit)
		return 0, &r
	}
	return int(min(*v, toolsearch.MaxLimit)), nil
}

// matches turns hits into full descriptors. A tool removed or re-registered
// outside the deferred tier since the search ran is left out.
func (ts *ToolSearch) matches(hits []toolsearch.Hit) []SearchMatch {
	out := make([]SearchMatch, 0, len(hits))
	for _, h := range hits {
		e, ok := ts.reg.Lookup(h.Name)
		if !ok || e.Desc.Exposure != protocol.ExposureDeferred {
			continue
		}
		out = append(out, SearchMatch{Name: h.Name, Description: e.Desc.Description, Parameters: e.Desc.Parameters, Score: h.Score})
	}
	return out
}

// index returns the index, building it from the registry on first use.
func (ts *ToolSearch) index() (*toolsearch.Index, error) {
	if idx := ts.idx.Load(); idx != nil {
		return idx, nil
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if idx := ts.idx.Load(); idx != nil {
		return idx, nil
	}
	an, err := toolsearch.NewAnalyzer()
	if err != nil {
		return nil, err
	}
	idx := toolsearch.NewIndex(an)
	var docs []toolsearch.Doc
	for _, d := range ts.reg.Descriptors() {
		if d.Exposure == protocol.ExposureDeferred {
			docs = append(docs, toolsearch.Doc{Name: d.Name, Description: d.Description})
		}
	}
	idx.Apply(docs, nil)
	ts.idx.Store(idx)
	return idx, nil
}

// observe follows a registry change. Rather than replaying the change, it
// re-reads each named tool from the registry under ts.mu: notifications of
// concurrent changes may arrive out of order, but the last one to run for a
// name sees that name's latest state. Before the first search there is no
// index to update; the build reads the registry as it is then.
func (ts *ToolSearch) observe(c Change) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	idx := ts.idx.Load()
	if idx == nil {
		return
	}
	names := slices.Clone(c.Removed)
	for _, d := range c.Added {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	var upsert []toolsearch.Doc
	var remove []string
	for _, name := range slices.Compact(names) {
		if e, ok := ts.reg.Lookup(name); ok && e.Desc.Exposure == protocol.ExposureDeferred {
			upsert = append(upsert, toolsearch.Doc{Name: name, Description: e.Desc.Description})
		} else {
			remove = append(remove, name)
		}
	}
	idx.Apply(upsert, remove)
}

var _ Tool = (*ToolSearch)(nil)
