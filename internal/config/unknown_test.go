package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnknownVariablesSuggestTheNearest(t *testing.T) {
	tests := []struct {
		name, suggestion string
	}{
		{"STEERABLE_SANBOX", "STEERABLE_SANDBOX"},
		{"STEERABLE_SANDBOX_NETWROK", "STEERABLE_SANDBOX_NETWORK"},
		{"STEERABLE_PLUGIN_CONFIG", "STEERABLE_PLUGINS_CONFIG"},
		{"STEERABLE_PLUGINS_DIR", "STEERABLE_PLUGIN_DIR"},
		{"STEERABLE_MAX_FRAME_SIZE", "STEERABLE_MAX_FRAME_BYTES"},
		{"STEERABLE_WEB_SEARCH_APIKEY", "STEERABLE_WEB_SEARCH_API_KEY"},
		{"STEERABLE_TAVILY_API_KEY", "TAVILY_API_KEY"},
		{"steerable_sandbox", "STEERABLE_SANDBOX"}, // names are case-sensitive
		{"Steerable_Workspace", "STEERABLE_WORKSPACE"},
		{"STEERABLE_FOO", ""},
		{"STEERABLE_", ""},
	}
	for _, tt := range tests {
		_, problems := Load(map[string]string{tt.name: "secret-value"})
		if len(problems) != 1 {
			t.Errorf("%s: problems %v", tt.name, problems)
			continue
		}
		p := problems[0]
		if !p.Unknown || p.Var != tt.name || p.Suggestion != tt.suggestion || p.Value != "" {
			t.Errorf("%s: problem %+v, want suggestion %q and no value", tt.name, p, tt.suggestion)
		}
		if strings.Contains(p.Error(), "secret-value") || !strings.Contains(p.Error(), tt.name) || !strings.Contains(p.Error(), tt.suggestion) {
			t.Errorf("%s: message %q", tt.name, p.Error())
		}
	}
}

func TestUnknownMessage(t *testing.T) {
	_, problems := Load(map[string]string{"STEERABLE_SANBOX": "bwrap", "STEERABLE_FOO": "1"})
	var got []string
	for _, p := range problems {
		got = append(got, p.Error())
	}
	want := []string{
		"STEERABLE_FOO is not a steerable-sidecar variable (steerable-sidecar --help lists them)",
		"STEERABLE_SANBOX is not a steerable-sidecar variable; did you mean STEERABLE_SANDBOX?",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// TestNotEveryNameIsATypo: real variables, other programs' names, the
// sandbox's marker of its own commands and the test suites' names are not
// reported.
func TestNotEveryNameIsATypo(t *testing.T) {
	_, problems := Load(map[string]string{
		"STEERABLE_SANDBOX":      "bwrap",
		"TAVILY_API_KEY":         "k",
		"PATH":                   "/usr/bin",
		"MY_STEERABLE_THING":     "x",
		"STEERABLE_SANDBOX_CALL": "7",
		"STEERABLE_TEST_PYTHONS": "/usr/bin/python3.11",
	})
	if len(problems) != 0 {
		t.Errorf("problems = %v", problems)
	}
}

// TestUnknownComeLast: invalid values first (declaration order), then the
// unknown names sorted.
func TestUnknownComeLast(t *testing.T) {
	_, problems := Load(map[string]string{"STEERABLE_ZZ": "", "STEERABLE_AA": "", "STEERABLE_MAX_INFLIGHT": "0"})
	var got []string
	for _, p := range problems {
		got = append(got, p.Var)
	}
	if diff := cmp.Diff([]string{"STEERABLE_MAX_INFLIGHT", "STEERABLE_AA", "STEERABLE_ZZ"}, got); diff != "" {
		t.Error(diff)
	}
}
