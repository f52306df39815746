package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

// TestSearchToolsRegistered: grep and glob are read-mode, direct tools
// whenever the workspace is open, and their schemas state the limits the
// engine applies.
func TestSearchToolsRegistered(t *testing.T) {
	h := newFileHarness(t)
	for _, name := range []string{"grep", "glob"} {
		e, ok := h.d.reg.Lookup(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		if e.Desc.Mode != protocol.ModeRead || e.Desc.Exposure != protocol.ExposureDirect {
			t.Errorf("%s: mode %s, exposure %s", name, e.Desc.Mode, e.Desc.Exposure)
		}
		var schema struct {
			Properties map[string]struct {
				Minimum *int `json:"minimum"`
				Maximum *int `json:"maximum"`
				Default any  `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(e.Desc.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		l := schema.Properties["limit"]
		if *l.Minimum != 1 || *l.Maximum != 1000 || l.Default != float64(200) {
			t.Errorf("%s: limit %d..%d default %v", name, *l.Minimum, *l.Maximum, l.Default)
		}
	}
}

func TestGrepTool(t *testing.T) {
	h := newFileHarness(t)
	h.write("a.go", "package a\n\nfunc parseConfig() {}\n")
	h.write("b/c.md", "call parseConfig here\n")
	res := h.ok("grep", map[string]any{"query": "parseConfig", "context": 1})
	hits := res.Data["hits"].([]any)
	if len(hits) != 2 || res.Data["matchedFiles"] != json.Number("2") || res.Data["truncated"] != false {
		t.Fatalf("data %v", res.Data)
	}
	if !strings.HasPrefix(res.Message, "2 lines in 2 files match \"parseConfig\"") {
		t.Errorf("message %q", res.Message)
	}
	var goHit map[string]any
	for _, hit := range hits {
		if m := hit.(map[string]any); m["path"] == "a.go" {
			goHit = m
		}
	}
	want := map[string]any{"path": "a.go", "line": json.Number("3"), "text": "func parseConfig() {}", "before": []any{""}}
	if diff := cmp.Diff(want, goHit); diff != "" {
		t.Errorf("hit (-want +got):\n%s", diff)
	}
	res = h.ok("grep", map[string]any{"query": "PARSECONFIG", "ignoreCase": true, "output": "files", "glob": "*.md"})
	if diff := cmp.Diff([]any{"b/c.md"}, res.Data["files"]); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	res = h.ok("grep", map[string]any{"query": `parse\w+`, "isRegex": true, "output": "count"})
	if len(res.Data["counts"].([]any)) != 2 || res.Data["matchedLines"] != json.Number("2") {
		t.Errorf("counts %v", res.Data)
	}
	res = h.ok("grep", map[string]any{"query": "absent", "output": "files"})
	if diff := cmp.Diff([]any{}, res.Data["files"]); diff != "" || !strings.HasPrefix(res.Message, "no matches") {
		t.Errorf("no match: %v %q", res.Data, res.Message)
	}
}

func TestSearchToolRefusals(t *testing.T) {
	h := newFileHarness(t)
	h.write("a.go", "x\n")
	h.refused("grep", map[string]any{"query": ""}, "query is empty")
	h.refused("grep", map[string]any{"query": "a(?=b)", "isRegex": true}, "invalid regular expression \"a(?=b)\"")
	h.refused("grep", map[string]any{"query": "x", "path": "../.."}, "path escapes the workspace")
	h.refused("grep", map[string]any{"query": "x", "path": "nope"}, "nope does not exist")
	h.refused("grep", map[string]any{"query": "x", "limit": 1001}, "/limit")
	h.refused("grep", map[string]any{"query": "x", "context": 11}, "/context")
	h.refused("grep", map[string]any{"query": "x", "output": "lines"}, "/output")
	h.refused("glob", map[string]any{"pattern": ""}, "pattern is empty")
	h.refused("glob", map[string]any{"pattern": "  \t"}, "pattern is empty (white space only)")
	h.refused("glob", map[string]any{"pattern": "src/{a,b"}, "invalid glob pattern")
	h.refused("glob", map[string]any{"pattern": "*", "limit": 0}, "/limit")
}

func TestGlobTool(t *testing.T) {
	h := newFileHarness(t)
	h.write("src/a.go", "")
	h.write("src/b/c.go", "")
	res := h.ok("glob", map[string]any{"pattern": "**/*.go"})
	got := res.Data["files"].([]any)
	if len(got) != 2 || res.Data["matched"] != json.Number("2") || res.Message != `2 files match "**/*.go"` {
		t.Fatalf("%q %v", res.Message, res.Data)
	}
	res = h.ok("glob", map[string]any{"pattern": "*.go"})
	if want := `no files match "*.go" directly in the workspace; "**/*.go" searches every directory below it`; res.Message != want {
		t.Errorf("message %q", res.Message)
	}
	res = h.ok("glob", map[string]any{"pattern": "lib/**/*.go"})
	if res.Message != `no files match "lib/**/*.go": lib does not exist` {
		t.Errorf("message %q", res.Message)
	}
}
