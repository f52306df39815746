package spelling

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"read_file", "read_file", 0}, {"flaw", "lawn", 2}, {"comand", "command", 1},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"read_file", "write_file", "edit_file", "grep", "bash"}
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"raed_file", 3, []string{"read_file", "write_file", "edit_file"}},
		{"raed_file", 1, []string{"read_file"}},
		{"grpe", 3, []string{"grep"}},
		{"zzzzzzz", 3, []string{}},
		{"", 3, []string{}},
		{strings.Repeat("x", 100000), 3, []string{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Suggest(tt.name, names, tt.n)); diff != "" {
			t.Errorf("Suggest(%.20q, %d) (-want +got):\n%s", tt.name, tt.n, diff)
		}
	}
}

func TestNearest(t *testing.T) {
	vars := []string{"STEERABLE_SANDBOX", "STEERABLE_SANDBOX_NETWORK", "STEERABLE_SANDBOX_REQUIRE", "STEERABLE_PLUGINS_CONFIG", "STEERABLE_PLUGIN_DIR"}
	keys := []string{"command", "args", "env", "cwd", "toolPrefix", "exposure", "sandbox", "disabled"}
	for _, tt := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"STEERABLE_SANBOX", vars, "STEERABLE_SANDBOX"},
		{"STEERABLE_SANDBOX_NETWROK", vars, "STEERABLE_SANDBOX_NETWORK"},
		{"STEERABLE_PLUGIN_CONFIG", vars, "STEERABLE_PLUGINS_CONFIG"},
		{"STEERABLE_PLUGINS_DIR", vars, "STEERABLE_PLUGIN_DIR"},
		{"comand", keys, "command"},
		{"arg", keys, "args"},
		{"toolprefix", keys, "toolPrefix"},
		{"tags", keys, "args"},
		{"description", keys, ""},
	} {
		if got := Nearest(tt.name, tt.candidates); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// FuzzSuggest: any name, however long or odd, gets suggestions that are
// candidates, within the bound, nearest first.
func FuzzSuggest(f *testing.F) {
	for _, s := range []string{"", "raed_file", "STEERABLE_SANBOX", "\xff\x00", strings.Repeat("a", 300)} {
		f.Add(s)
	}
	names := []string{"read_file", "STEERABLE_SANDBOX", "a", "command", strings.Repeat("a", 200)}
	f.Fuzz(func(t *testing.T, name string) {
		prev := -1
		for _, s := range Suggest(name, names, len(names)) {
			d := Distance(name, s)
			if 2*d > max(len(name), len(s)) || d < prev {
				t.Fatalf("Suggest(%q) gave %q at distance %d after %d", name, s, d, prev)
			}
			prev = d
		}
	})
}
