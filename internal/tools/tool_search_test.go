package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	sidecar "steerable.dev/sidecar"
	"steerable.dev/sidecar/internal/toolsearch"
	"steerable.dev/sidecar/protocol"
)

// described is a test tool with a description of its own.
func described(name, description string, exposure protocol.Exposure) Tool {
	return New(protocol.ToolDescriptor{Name: name, Description: description, Parameters: json.RawMessage(echoSchema), Exposure: exposure},
		func(context.Context, Call, echoArgs) protocol.ToolResult { return OK(name, nil) })
}

// searchSetup is a registry with tool_search registered like a built-in.
func searchSetup(t *testing.T, extra ...Tool) (*Registry, *ToolSearch, *Dispatcher) {
	t.Helper()
	r := NewRegistry()
	ts := NewToolSearch(r)
	if err := r.Register(protocol.SourceBuiltin, append([]Tool{ts}, extra...)...); err != nil {
		t.Fatal(err)
	}
	return r, ts, NewDispatcher(r, nil, zerolog.Nop())
}

// searchResult runs tool_search through the dispatch pipeline.
func searchResult(t *testing.T, d *Dispatcher, args string) protocol.ToolResult {
	t.Helper()
	return d.Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{Name: "tool_search", Arguments: json.RawMessage(args)}})
}

// matchNames returns the names in a successful result.
func matchNames(t *testing.T, res protocol.ToolResult) []string {
	t.Helper()
	if !res.Success {
		t.Fatalf("tool_search failed: %s", res.Error)
	}
	out := []string{}
	for _, m := range res.Data["matches"].([]SearchMatch) {
		out = append(out, m.Name)
	}
	return out
}

func TestToolSearchDescriptor(t *testing.T) {
	r, _, _ := searchSetup(t)
	e, _ := r.Lookup("tool_search")
	if e.Desc.Mode != protocol.ModeRead || e.Desc.Exposure != protocol.ExposureDirect {
		t.Errorf("tool_search is %s/%s, want read/direct", e.Desc.Mode, e.Desc.Exposure)
	}
	var schema map[string]any
	if err := json.Unmarshal(e.Desc.Parameters, &schema); err != nil || schema["additionalProperties"] != false {
		t.Errorf("parameters %s: want additionalProperties:false", e.Desc.Parameters)
	}
}

func TestToolSearchTiers(t *testing.T) {
	_, _, d := searchSetup(t,
		described("create_direct", "create things", protocol.ExposureDirect),
		described("create_hidden", "create things", protocol.ExposureHidden),
		described("create_deferred", "create things", protocol.ExposureDeferred),
		described("other_deferred", "unrelated", protocol.ExposureDeferred))
	res := searchResult(t, d, `{"query":"create things"}`)
	if diff := cmp.Diff([]string{"create_deferred"}, matchNames(t, res)); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	if got := res.Data["deferredCount"]; got != 2 {
		t.Errorf("deferredCount = %v, want 2 (direct, hidden and tool_search itself are not in the tier)", got)
	}
	// tool_search is direct: it never finds itself.
	if got := matchNames(t, searchResult(t, d, `{"query":"tool search keywords BM25 schemas"}`)); len(got) != 0 {
		t.Errorf("search for tool_search's own words found %v", got)
	}
}

func TestToolSearchMatchCarriesSchemaAndScore(t *testing.T) {
	_, _, d := searchSetup(t, described("create_event", "Create a calendar event.", protocol.ExposureDeferred))
	res := searchResult(t, d, `{"query":"calendar"}`)
	m := res.Data["matches"].([]SearchMatch)
	if len(m) != 1 || m[0].Description != "Create a calendar event." || m[0].Score <= 0 || string(m[0].Parameters) != echoSchema {
		t.Fatalf("match = %+v", m)
	}
	if !strings.Contains(res.Message, "1 of 1 deferred tools") {
		t.Errorf("message = %q", res.Message)
	}
}

func TestToolSearchFloorAndBounds(t *testing.T) {
	var many []Tool
	for i := range 30 {
		many = append(many, described(fmt.Sprintf("report_%02d", i), "make a report", protocol.ExposureDeferred))
	}
	_, _, d := searchSetup(t, many...)
	tests := []struct {
		args string
		want int
	}{
		{`{"query":"report"}`, toolsearch.DefaultLimit},
		{`{"query":"report","max_results":3}`, 3},
		{`{"query":"report","max_results":20}`, 20},
		{`{"query":"report","max_results":25}`, toolsearch.MaxLimit},
		{`{"query":"report","max_results":1e300}`, toolsearch.MaxLimit},
		{`{"query":"report","max_results":1}`, 1},
		{`{"query":"kubernetes"}`, 0}, // off-vocabulary: success with no matches
	}
	for _, tt := range tests {
		if got := matchNames(t, searchResult(t, d, tt.args)); len(got) != tt.want {
			t.Errorf("%s: %d matches, want %d", tt.args, len(got), tt.want)
		}
	}
	// Ties (equal documents) break by name.
	if diff := cmp.Diff([]string{"report_00", "report_01", "report_02"}, matchNames(t, searchResult(t, d, `{"query":"report","max_results":3}`))); diff != "" {
		t.Error(diff)
	}
}

func TestToolSearchBadInput(t *testing.T) {
	_, _, d := searchSetup(t, described("create_event", "Create a calendar event.", protocol.ExposureDeferred))
	tests := []struct {
		name, args, want string
	}{
		{"empty query", `{"query":""}`, "query is empty"},
		{"whitespace query", `{"query":" \t\n "}`, "query is empty"},
		{"punctuation only", `{"query":"?! -- ..."}`, "no letters or digits"},
		{"100 KB query", fmt.Sprintf(`{"query":%q}`, strings.Repeat("calendar ", 100_000/9)), "at most 1000"},
		{"missing query", `{}`, "missing property 'query'"},
		{"max_results 0", `{"query":"x","max_results":0}`, "at least 1"},
		{"max_results negative", `{"query":"x","max_results":-5}`, "at least 1"},
		{"max_results fraction", `{"query":"x","max_results":2.5}`, "/max_results"},
		{"max_results string", `{"query":"x","max_results":"3"}`, "/max_results"},
		{"max_results out of float range", `{"query":"x","max_results":1e400}`, "do not decode"},
		{"unknown argument", `{"query":"x","limit":3}`, "limit"},
	}
	for _, tt := range tests {
		res := searchResult(t, d, tt.args)
		if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, tt.want) {
			t.Errorf("%s: got %+v, want a follow-up error containing %q", tt.name, res, tt.want)
		}
	}
	// The tool keeps serving.
	if got := matchNames(t, searchResult(t, d, `{"query":"calendar"}`)); len(got) != 1 {
		t.Errorf("after bad input: %v", got)
	}
}

func TestToolSearchIsLazyAndFollowsChanges(t *testing.T) {
	r, ts, d := searchSetup(t)
	if err := r.Register(protocol.SourceHost, described("send_email", "Send an e-mail.", protocol.ExposureDeferred)); err != nil {
		t.Fatal(err)
	}
	if ts.idx.Load() != nil {
		t.Fatal("the index was built before the first search")
	}
	if got := matchNames(t, searchResult(t, d, `{"query":"email"}`)); !cmp.Equal(got, []string{"send_email"}) {
		t.Fatalf("first search: %v", got)
	}
	// Register after the index exists.
	if err := r.Register(protocol.SourceHost, described("search_email", "Search the mailbox.", protocol.ExposureDeferred)); err != nil {
		t.Fatal(err)
	}
	if got := matchNames(t, searchResult(t, d, `{"query":"email"}`)); len(got) != 2 {
		t.Fatalf("after register: %v", got)
	}
	// Unregister.
	r.Unregister("send_email")
	if got := matchNames(t, searchResult(t, d, `{"query":"email"}`)); !cmp.Equal(got, []string{"search_email"}) {
		t.Fatalf("after unregister: %v", got)
	}
	// Re-register: a new description, then a move out of the deferred tier.
	if err := r.Swap(protocol.SourceHost, []string{"search_email"}, []Tool{described("search_email", "Find messages.", protocol.ExposureDeferred)}); err != nil {
		t.Fatal(err)
	}
	if got := matchNames(t, searchResult(t, d, `{"query":"mailbox"}`)); len(got) != 0 {
		t.Fatalf("old description still indexed: %v", got)
	}
	if got := matchNames(t, searchResult(t, d, `{"query":"messages"}`)); len(got) != 1 {
		t.Fatalf("new description not indexed: %v", got)
	}
	if err := r.Swap(protocol.SourceHost, []string{"search_email"}, []Tool{described("search_email", "Find messages.", protocol.ExposureDirect)}); err != nil {
		t.Fatal(err)
	}
	res := searchResult(t, d, `{"query":"messages"}`)
	if got := matchNames(t, res); len(got) != 0 || res.Data["deferredCount"] != 0 {
		t.Fatalf("a tool moved to the direct tier is still found: %v (deferredCount %v)", got, res.Data["deferredCount"])
	}
}

// TestToolSearchConcurrentUpdates registers, swaps and unregisters from
// several goroutines while others search (run with -race), then checks the
// index agrees with a fresh one built from the registry: out-of-order change
// notifications must not leave it stale.
func TestToolSearchConcurrentUpdates(t *testing.T) {
	r, ts, d := searchSetup(t)
	searchResult(t, d, `{"query":"warm"}`) // build the index first
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			src := fmt.Sprintf("plugin:w%d", w)
			for i := range 60 {
				name := fmt.Sprintf("w%d_tool_%d", w, rng.IntN(6))
				words := fmt.Sprintf("alpha beta gen%d", i%3)
				switch rng.IntN(3) {
				case 0:
					r.Unregister(name)
				case 1:
					_ = r.Swap(src, []string{name}, []Tool{described(name, words, protocol.ExposureDeferred)})
				default:
					_ = r.Swap(src, []string{name}, []Tool{described(name, words, protocol.ExposureDirect)})
				}
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 60 {
				if res := searchResult(t, d, `{"query":"alpha gen1","max_results":20}`); !res.Success {
					t.Errorf("search during updates failed: %s", res.Error)
					return
				}
			}
		}()
	}
	wg.Wait()
	fresh := NewToolSearch(r)
	for _, q := range []string{"alpha", "gen0", "gen1 beta", "gen2"} {
		got, want := ts.mustIndex(t).Search(q, 20), fresh.mustIndex(t).Search(q, 20)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: index after concurrent updates differs from a fresh one (-fresh +live):\n%s", q, diff)
		}
	}
}

func (ts *ToolSearch) mustIndex(t *testing.T) *toolsearch.Index {
	t.Helper()
	idx, err := ts.index()
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func TestProgressiveStrategy(t *testing.T) {
	tools := []Tool{echoTool("bash", ""), echoTool("zeta", ""), echoTool("deferred_one", protocol.ExposureDeferred),
		echoTool("secret", protocol.ExposureHidden), echoTool("ask_user", "")}
	r, _, _ := searchSetup(t, tools...)
	list := func(p protocol.ToolListParams) []string {
		ds, err := r.List(p)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range ds {
			out = append(out, d.Name)
		}
		return out
	}
	p := protocol.ToolListParams{View: protocol.ViewModel, Strategy: protocol.StrategyProgressive}
	if diff := cmp.Diff([]string{"bash", "tool_search", "zeta"}, list(p)); diff != "" {
		t.Errorf("progressive (-want +got):\n%s", diff)
	}
	p.AskUser = true
	if diff := cmp.Diff([]string{"ask_user", "bash", "tool_search", "zeta"}, list(p)); diff != "" {
		t.Errorf("progressive with askUser (-want +got):\n%s", diff)
	}

	// Unwired selections are errors, never a list with a tool that cannot
	// find what it is asked for.
	fake := newTestRegistry(t, echoTool("bash", ""), echoTool("tool_search", ""))
	other := newTestRegistry(t, echoTool("bash", ""))
	if err := other.Register(protocol.SourceBuiltin, NewToolSearch(NewRegistry())); err != nil {
		t.Fatal(err)
	}
	for name, reg := range map[string]*Registry{"absent": newTestRegistry(t, echoTool("bash", "")), "impostor": fake, "another registry's": other} {
		_, err := reg.List(protocol.ToolListParams{View: protocol.ViewModel, Strategy: protocol.StrategyProgressive})
		if !errors.Is(err, protocol.ErrPolicyDenied) || !strings.Contains(err.Error(), "tool_search") || !strings.Contains(err.Error(), `"full"`) {
			t.Errorf("%s tool_search: progressive gave %v, want policy_denied naming tool_search and the alternatives", name, err)
		}
	}
}

func TestToolSearchContractQueryLimit(t *testing.T) {
	var c struct {
		ToolSearch struct {
			Parameters struct {
				MaxQueryCharacters int `json:"maxQueryCharacters"`
			} `json:"parameters"`
		} `json:"toolSearch"`
	}
	if err := json.Unmarshal(sidecar.Contract, &c); err != nil {
		t.Fatal(err)
	}
	if c.ToolSearch.Parameters.MaxQueryCharacters != maxQueryChars {
		t.Errorf("contract maxQueryCharacters = %d, code %d", c.ToolSearch.Parameters.MaxQueryCharacters, maxQueryChars)
	}
}
