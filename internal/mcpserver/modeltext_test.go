package mcpserver

import (
	"encoding/json"
	"testing"

	"steerable.dev/sidecar/internal/codesearch"
	"steerable.dev/sidecar/protocol"
)

func TestModelText(t *testing.T) {
	ok := func(d map[string]any) protocol.ToolResult { return protocol.ToolResult{Success: true, Data: d} }
	cases := []struct {
		name, tool string
		res        protocol.ToolResult
		want       string
		moved      string
		has        bool
	}{
		{"read_file", "read_file", ok(map[string]any{"path": "/w/a.go", "content": "a\nb\n", "totalLines": 9, "version": "v1"}),
			"/w/a.go (2 of 9 lines, version v1)\na\nb\n", "content", true},
		{"read_file no trailing newline", "read_file", ok(map[string]any{"path": "/w/a", "content": "a", "totalLines": 1, "version": "v"}),
			"/w/a (1 of 1 lines, version v)\na", "content", true},
		{"glob", "glob", ok(map[string]any{"files": []string{"a.go", "b/c.go"}}), "a.go\nb/c.go", "files", true},
		{"bash", "bash", ok(map[string]any{"exitCode": 2, "stdout": "out", "stderr": "err"}),
			"exit code: 2\nstdout:\nout\nstderr:\nerr", "stdout,stderr", true},
		{"grep hits", "grep", ok(map[string]any{"hits": []codesearch.Hit{{Path: "a.go", Line: 3, Text: "func A()"}, {Path: "b.go", Line: 10, Text: "A()"}}}),
			"a.go:3: func A()\nb.go:10: A()", "hits", true},
		{"grep files", "grep", ok(map[string]any{"files": []string{"a.go"}}), "a.go", "files", true},
		{"grep counts keep today's shape", "grep", ok(map[string]any{"counts": []codesearch.FileCount{}}), "", "", false},
		{"edit_file", "edit_file", ok(map[string]any{"diff": "-a\n+b\n"}), "-a\n+b\n", "diff", true},
		{"apply_patch", "apply_patch", ok(map[string]any{"diff": "+c\n"}), "+c\n", "diff", true},
		{"web_fetch", "web_fetch", ok(map[string]any{"content": "# T\n\ntext"}), "# T\n\ntext", "content", true},
		{"failure keeps today's shape", "read_file", protocol.ToolResult{Error: "no such file"}, "", "", false},
		{"unknown tool", "plugin_x", ok(map[string]any{"content": "x"}), "", "", false},
		{"content blocks stay blocks", "read_file", protocol.ToolResult{Success: true, Content: []protocol.ContentBlock{{Type: protocol.ContentImage}}}, "", "", false},
		{"wrong field type", "glob", ok(map[string]any{"files": "a"}), "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, moved, has := modelText(c.tool, c.res)
			if got != c.want || moved != c.moved || has != c.has {
				t.Errorf("modelText = %q, %q, %v; want %q, %q, %v", got, moved, has, c.want, c.moved, c.has)
			}
		})
	}
}

func TestModelResultMovesPayloadOutOfStructuredContent(t *testing.T) {
	cases := []struct {
		tool string
		data map[string]any
		gone []string
		kept string
	}{
		{"read_file", map[string]any{"path": "/w/a", "content": "big text", "totalLines": 1, "version": "v"}, []string{"content"}, "version"},
		{"bash", map[string]any{"exitCode": 0, "stdout": "o", "stderr": "e", "durationMs": 3}, []string{"stdout", "stderr"}, "exitCode"},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			r, ok := modelResult(c.tool, protocol.ToolResult{Success: true, Data: c.data})
			if !ok || len(r.Content) != 1 || r.IsError {
				t.Fatalf("modelResult = %+v, %v", r, ok)
			}
			var sc map[string]any
			if err := json.Unmarshal(r.StructuredContent.(json.RawMessage), &sc); err != nil {
				t.Fatal(err)
			}
			for _, k := range c.gone {
				if _, has := sc[k]; has {
					t.Errorf("structuredContent repeats %q: %v", k, sc)
				}
			}
			if _, has := sc[c.kept]; !has {
				t.Errorf("structuredContent lost %q: %v", c.kept, sc)
			}
			if _, err := appendResult(nil, r); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, ok := modelResult("read_file", protocol.ToolResult{Error: "denied"}); ok {
		t.Error("a failure took the model shape; it keeps error and hint")
	}
}
