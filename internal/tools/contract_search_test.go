package tools_test

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	sidecar "steerable.dev/sidecar"
	"steerable.dev/sidecar/internal/codesearch"
	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/protocol"
)

// searchTool is what the contract says of each search tool's surface.
type searchTool struct {
	Mode     protocol.Mode     `json:"mode"`
	Exposure protocol.Exposure `json:"exposure"`
	Input    struct {
		Required, Optional []string
	} `json:"input"`
}

// searchContract is the "searchTools" section of tool_contract.json, as
// far as the tests check it.
type searchContract struct {
	Tools struct {
		Grep struct {
			searchTool
			Result        map[string][]string `json:"result"`
			HitFields     []string            `json:"hitFields"`
			CountFields   []string            `json:"countFields"`
			SkippedFields []string            `json:"skippedFields"`
		} `json:"grep"`
		Glob struct {
			searchTool
			Result        []string `json:"result"`
			SkippedFields []string `json:"skippedFields"`
		} `json:"glob"`
	} `json:"tools"`
	Limits struct {
		Default, Maximum, Minimum int
		Context                   struct{ Minimum, Maximum int }
		QueryBytes                int `json:"queryBytes"`
		PatternBytes              int `json:"patternBytes"`
		BraceAlternatives         int `json:"braceAlternatives"`
		TextCharacters            int `json:"textCharacters"`
	} `json:"limits"`
	Selection struct {
		DefaultSet []string `json:"defaultSet"`
	} `json:"selection"`
}

func loadSearchContract(t *testing.T) searchContract {
	t.Helper()
	var c struct {
		SearchTools searchContract `json:"searchTools"`
	}
	if err := json.Unmarshal(sidecar.Contract, &c); err != nil {
		t.Fatal(err)
	}
	return c.SearchTools
}

// TestContractSearchConstants: the contract's numbers and default set are
// the code's, and the configuration's default is the same set.
func TestContractSearchConstants(t *testing.T) {
	c := loadSearchContract(t)
	got := []int{c.Limits.Default, c.Limits.Maximum, c.Limits.Context.Maximum, c.Limits.QueryBytes, c.Limits.PatternBytes, c.Limits.TextCharacters}
	want := []int{codesearch.DefaultLimit, codesearch.MaxLimit, codesearch.MaxContext, codesearch.MaxQueryBytes, codesearch.MaxPatternBytes, codesearch.MaxTextChars}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("limits (-code +contract):\n%s", diff)
	}
	if diff := cmp.Diff(codesearch.DefaultIgnore, c.Selection.DefaultSet); diff != "" {
		t.Errorf("default set (-code +contract):\n%s", diff)
	}
	for _, v := range config.Vars() {
		if v.Name == "STEERABLE_SEARCH_IGNORE" && v.Default != strings.Join(codesearch.DefaultIgnore, ",") {
			t.Errorf("STEERABLE_SEARCH_IGNORE defaults to %q, the engine to %v", v.Default, codesearch.DefaultIgnore)
		}
	}
}

// TestContractSearchSchemas: grep and glob are registered with the
// contract's mode, tier, fields and limits.
func TestContractSearchSchemas(t *testing.T) {
	c := loadSearchContract(t)
	reg, _, _ := fileTools(t)
	for name, want := range map[string]searchTool{"grep": c.Tools.Grep.searchTool, "glob": c.Tools.Glob.searchTool} {
		e, ok := reg.Lookup(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		schema := want.checkSurface(t, name, e.Desc)
		l := schema.Properties["limit"]
		if *l.Minimum != c.Limits.Minimum || *l.Maximum != c.Limits.Maximum || l.Default != float64(c.Limits.Default) {
			t.Errorf("%s: limit %d..%d default %v", name, *l.Minimum, *l.Maximum, l.Default)
		}
	}
}

// TestContractSearchResults runs each output once and checks the data
// fields against the contract.
func TestContractSearchResults(t *testing.T) {
	c := loadSearchContract(t)
	_, d, dir := fileTools(t)
	os.WriteFile(dir+"/a.txt", []byte("one\nneedle\nthree\n"), 0o644)
	check := func(name, args string, want []string) map[string]any {
		skippedFields := c.Tools.Grep.SkippedFields
		if name == "glob" {
			skippedFields = c.Tools.Glob.SkippedFields
		}
		res := dispatch(t, d, name, args)
		if !res.Success {
			t.Fatalf("%s %s: %s", name, args, res.Error)
		}
		delete(res.Data, "durationMs")
		if diff := cmp.Diff(sorted(want), slices.Sorted(maps.Keys(res.Data))); diff != "" {
			t.Errorf("%s %s: fields (-contract +data):\n%s", name, args, diff)
		}
		if skipped, ok := res.Data["skipped"].(map[string]any); ok {
			if diff := cmp.Diff(sorted(skippedFields), slices.Sorted(maps.Keys(skipped))); diff != "" {
				t.Errorf("skipped fields (-contract +data):\n%s", diff)
			}
		}
		return res.Data
	}
	data := check("grep", `{"query":"needle","context":1}`, c.Tools.Grep.Result["hits"])
	hit := data["hits"].([]any)[0].(map[string]any)
	if diff := cmp.Diff(sorted(c.Tools.Grep.HitFields), slices.Sorted(maps.Keys(hit))); diff != "" {
		t.Errorf("hit fields (-contract +data):\n%s", diff)
	}
	check("grep", `{"query":"needle","output":"files"}`, c.Tools.Grep.Result["files"])
	data = check("grep", `{"query":"needle","output":"count"}`, c.Tools.Grep.Result["count"])
	if diff := cmp.Diff(sorted(c.Tools.Grep.CountFields), slices.Sorted(maps.Keys(data["counts"].([]any)[0].(map[string]any)))); diff != "" {
		t.Errorf("count fields (-contract +data):\n%s", diff)
	}
	check("glob", `{"pattern":"*.txt"}`, c.Tools.Glob.Result)
}
