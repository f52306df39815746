package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/protocol"
)

// TestDegradeLogsWhatHappens: in serve posture each invalid variable's log
// line says what the sidecar does about it: a bad web variable must not be
// logged "using the default" while the web pair is left out.
func TestDegradeLogsWhatHappens(t *testing.T) {
	_, problems := config.Load(map[string]string{
		"STEERABLE_WEB_FETCH_MAX_REDIRECTS": "99",
		"STEERABLE_SHUTDOWN_GRACE_MS":       "-5",
		"STEERABLE_MAX_SESSIONS":            "999",
		"STEERABLE_SANBOX":                  "bwrap",
	})
	var buf bytes.Buffer
	a := &app{log: zerolog.New(&buf), checks: map[string]protocol.Check{}}
	a.degrade(problems)

	type line struct{ Var, Msg, Default string }
	var got []line
	for _, raw := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var l struct {
			Var     string `json:"var"`
			Message string `json:"message"`
			Default string `json:"default"`
		}
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatalf("log line %q: %v", raw, err)
		}
		got = append(got, line{l.Var, l.Message, l.Default})
	}
	byVar := func(a, b line) bool { return a.Var < b.Var }
	want := []line{
		{"STEERABLE_MAX_SESSIONS", "invalid configuration value; using the default", "8"},
		{"STEERABLE_SANBOX", "unknown variable ignored: STEERABLE_SANBOX is not a steerable-sidecar variable; did you mean STEERABLE_SANDBOX?", ""},
		{"STEERABLE_SHUTDOWN_GRACE_MS", "invalid configuration value; using the default", "5000"},
		{"STEERABLE_WEB_FETCH_MAX_REDIRECTS", "invalid configuration value; web_fetch and web_search are not registered", ""},
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(byVar)); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
	if a.cfg.Web.Disabled == "" || a.checks["web"].Status != protocol.CheckError {
		t.Errorf("web pair not disabled: Disabled=%q checks.web=%+v", a.cfg.Web.Disabled, a.checks["web"])
	}
	if c := a.checks["config"]; c.Status != protocol.CheckWarn || strings.Contains(c.Message, "WEB") {
		t.Errorf("checks.config = %+v; want a warning naming only the non-web variables", c)
	}
}
