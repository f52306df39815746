package mcpserver

import (
	"fmt"
	"strings"

	"steerable.dev/sidecar/internal/codesearch"
	"steerable.dev/sidecar/protocol"
)

// modelText is the text a model reads for a built-in tool's successful
// result, in the form it reads best: a file's text under
// a one-line header, one path per line, labelled exit code and streams.
// The data fields the text carries (modelMoved) then leave
// structuredContent, so the large payload is not sent twice. ok is false
// for a tool (or a result) with no model form; the caller then keeps
// today's shape.
func modelText(tool string, res protocol.ToolResult) (text string, ok bool) {
	if !res.Success || len(res.Content) > 0 {
		return "", false
	}
	f, ok := modelForms[tool]
	if !ok {
		return "", false
	}
	return f(res.Data)
}

// modelForms maps a tool to its text form, one function per tool.
var modelForms = map[string]func(map[string]any) (string, bool){
	"read_file":   readFileText,
	"glob":        globText,
	"bash":        bashText,
	"grep":        grepText,
	"edit_file":   diffText,
	"apply_patch": diffText,
	"web_fetch":   webFetchText,
}

// modelMoved names, per tool with a model form, the data fields its text
// carries: structuredContent leaves them out (grep sends hits or files,
// whichever its output asked for), and the tool's outputSchema says so. A
// read_file whose result is content blocks (an image, a PDF, a notebook)
// leaves content out too: the blocks carry it.
var modelMoved = map[string][]string{
	"read_file":   {"content"},
	"glob":        {"files"},
	"bash":        {"stdout", "stderr"},
	"grep":        {"hits", "files"},
	"edit_file":   {"diff"},
	"apply_patch": {"diff"},
	"web_fetch":   {"content"},
}

// readFileText is the file's text under "path (lines N of M, version V)".
func readFileText(d map[string]any) (string, bool) {
	content, ok := d["content"].(string)
	if !ok {
		return "", false
	}
	lines := strings.Count(content, "\n")
	if content != "" && !strings.HasSuffix(content, "\n") {
		lines++
	}
	header := fmt.Sprintf("%v (%d of %v lines, version %v)\n", d["path"], lines, d["totalLines"], d["version"])
	return header + content, true
}

// globText is one path per line.
func globText(d map[string]any) (string, bool) {
	files, ok := d["files"].([]string)
	if !ok {
		return "", false
	}
	return strings.Join(files, "\n"), true
}

// bashText is the exit code, then stdout, then stderr, each labelled.
func bashText(d map[string]any) (string, bool) {
	stdout, ok1 := d["stdout"].(string)
	stderr, ok2 := d["stderr"].(string)
	if !ok1 || !ok2 {
		return "", false
	}
	return fmt.Sprintf("exit code: %v\nstdout:\n%s\nstderr:\n%s", d["exitCode"], stdout, stderr), true
}

// grepText is one "path:line: text" line per hit; for output "files" one
// path per line (the glob form). Counts keep today's shape.
func grepText(d map[string]any) (string, bool) {
	if _, ok := d["files"]; ok {
		return globText(d)
	}
	hits, ok := d["hits"].([]codesearch.Hit)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for i, h := range hits {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s:%d: %s", h.Path, h.Line, h.Text)
	}
	return b.String(), true
}

// diffText is the edit's diff.
func diffText(d map[string]any) (string, bool) {
	diff, ok := d["diff"].(string)
	return diff, ok
}

// webFetchText is the page as fetched (Markdown by default).
func webFetchText(d map[string]any) (string, bool) {
	content, ok := d["content"].(string)
	return content, ok
}
