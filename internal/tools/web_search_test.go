package tools

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/protocol"
)

type stubSearch struct {
	err  error
	seen web.Query
}

func (s *stubSearch) Name() string { return "stub" }
func (s *stubSearch) Search(_ context.Context, q web.Query) ([]web.Result, error) {
	s.seen = q
	return []web.Result{
		{Title: "One", URL: "https://one.example/", Snippet: "first"},
		{Title: "Two", URL: "https://two.example/", Snippet: "second"},
	}, s.err
}

func TestWebSearchTool(t *testing.T) {
	stub := &stubSearch{}
	cfg := webTestConfig()
	cfg.SessionSearchCap = 2
	d := webDispatcher(t, cfg, stub)

	got := invokeWeb(d, "web_search", `{"query":"go","max_results":50,"blocked_domains":["two.example"]}`)
	want := protocol.ToolResult{Success: true, Message: "1 results from stub", Data: map[string]any{
		"query": "go", "provider": "stub", "results": []web.Result{{Title: "One", URL: "https://one.example/", Snippet: "first"}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if stub.seen.MaxResults != web.MaxSearchResults {
		t.Errorf("max_results 50 reached the provider as %d, want it clamped to %d", stub.seen.MaxResults, web.MaxSearchResults)
	}

	stub.err = errors.New("backend down")
	got = invokeWeb(d, "web_search", `{"query":"go"}`)
	if got.Success || !got.NeedsFollowup || got.Error != "backend down" || got.Data["kind"] != "network" {
		t.Errorf("provider error: %+v", got)
	}
	got = invokeWeb(d, "web_search", `{"query":"go"}`)
	if got.Success || !got.NeedsFollowup || !strings.Contains(got.Error, "STEERABLE_WEB_SESSION_SEARCH_CAP") || got.Data["kind"] != "session_cap" {
		t.Errorf("cap: %+v", got)
	}
	for _, args := range []string{`{"query":""}`, `{"query":"q","max_results":0}`, `{"query":"q","extra":1}`, `{}`} {
		if got := invokeWeb(d, "web_search", args); got.Success || !got.NeedsFollowup {
			t.Errorf("%s accepted: %+v", args, got)
		}
	}
}

func TestWebSearchEgressTerminal(t *testing.T) {
	cfg := webTestConfig()
	cfg.EgressConfined = true
	got := invokeWeb(webDispatcher(t, cfg, &stubSearch{}), "web_search", `{"query":"q"}`)
	if !protocol.IsTerminal(got) || !strings.Contains(got.Error, "web_search is unavailable") {
		t.Errorf("%+v", got)
	}
}
