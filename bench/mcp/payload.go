package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

// What a read_file costs in bytes and in what the model is shown: most clients put the text blocks in front of the model, so their
// size, not the frame's, is what a result costs in tokens.

// sourceFile is one file the payload rows read.
type sourceFile struct {
	label string
	path  string
	size  int
	first string // its first line, to tell a header from the file's text
}

// writeSources writes Go source of about 4 KiB and of 100,000 bytes (the
// largest read_file shows whole: a larger view keeps its head and tail),
// with the tabs, quotes and backslashes that JSON escapes.
func writeSources(dir string) []sourceFile {
	var out []sourceFile
	for _, s := range []struct {
		label string
		size  int
	}{{"4 KiB", 4 << 10}, {"100 KB", 100_000}} {
		text := goSource(s.size)
		path := filepath.Join(dir, fmt.Sprintf("src%d.go", s.size))
		must(os.WriteFile(path, []byte(text), 0o644))
		out = append(out, sourceFile{s.label, path, len(text), text[:strings.IndexByte(text, '\n')]})
	}
	return out
}

// goSource is Go source of exactly size bytes.
func goSource(size int) string {
	var b strings.Builder
	b.WriteString("package bench\n\nimport \"fmt\"\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "// F%d prints \"its\" number.\nfunc F%d(s string) {\n\tfmt.Printf(\"%%d: %%q\\n\", %d, s)\n}\n\n", i, i, i)
	}
	return b.String()[:size-1] + "\n"
}

// payload is one read_file's size on the wire and as shown.
type payload struct {
	result int // the tools/call result object, as sent
	text   int // the text blocks' text
	header int // ours: the header line above the file's text (0 when none)
}

// measurePayload reads f once through tool.
func measurePayload(p *benchkit.Proc, tool string, f sourceFile) payload {
	raw := must1(p.Call("tools/call", map[string]any{"name": tool, "arguments": map[string]any{"path": f.path}}))
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	must(json.Unmarshal(raw, &res))
	if res.IsError {
		must(fmt.Errorf("%s %s: %.300s", tool, f.path, raw))
	}
	pl := payload{result: len(raw)}
	for i, c := range res.Content {
		if c.Type != "text" {
			continue
		}
		pl.text += len(c.Text)
		if line, _, _ := strings.Cut(c.Text, "\n"); i == 0 && line != f.first {
			pl.header = len(line) + 1
		}
	}
	return pl
}

// shownTarget: the text shown is within 5% of the file's size plus a
// header line.
func shownTarget(pl payload, f sourceFile) bool {
	return float64(pl.text-pl.header) <= 1.05*float64(f.size) && pl.header <= 200
}
