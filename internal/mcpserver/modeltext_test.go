package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/codesearch"
	"steerable.dev/sidecar/internal/mediatest"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func TestModelText(t *testing.T) {
	ok := func(d map[string]any) protocol.ToolResult { return protocol.ToolResult{Success: true, Data: d} }
	cases := []struct {
		name, tool string
		res        protocol.ToolResult
		want       string
		has        bool
	}{
		{"read_file", "read_file", ok(map[string]any{"path": "/w/a.go", "content": "a\nb\n", "totalLines": 9, "version": "v1"}),
			"/w/a.go (2 of 9 lines, version v1)\na\nb\n", true},
		{"read_file no trailing newline", "read_file", ok(map[string]any{"path": "/w/a", "content": "a", "totalLines": 1, "version": "v"}),
			"/w/a (1 of 1 lines, version v)\na", true},
		{"glob", "glob", ok(map[string]any{"files": []string{"a.go", "b/c.go"}}), "a.go\nb/c.go", true},
		{"bash", "bash", ok(map[string]any{"exitCode": 2, "stdout": "out", "stderr": "err"}),
			"exit code: 2\nstdout:\nout\nstderr:\nerr", true},
		{"grep hits", "grep", ok(map[string]any{"hits": []codesearch.Hit{{Path: "a.go", Line: 3, Text: "func A()"}, {Path: "b.go", Line: 10, Text: "A()"}}}),
			"a.go:3: func A()\nb.go:10: A()", true},
		{"grep files", "grep", ok(map[string]any{"files": []string{"a.go"}}), "a.go", true},
		{"grep counts keep today's shape", "grep", ok(map[string]any{"counts": []codesearch.FileCount{}}), "", false},
		{"edit_file", "edit_file", ok(map[string]any{"diff": "-a\n+b\n"}), "-a\n+b\n", true},
		{"apply_patch", "apply_patch", ok(map[string]any{"diff": "+c\n"}), "+c\n", true},
		{"web_fetch", "web_fetch", ok(map[string]any{"content": "# T\n\ntext"}), "# T\n\ntext", true},
		{"failure keeps today's shape", "read_file", protocol.ToolResult{Error: "no such file"}, "", false},
		{"unknown tool", "plugin_x", ok(map[string]any{"content": "x"}), "", false},
		{"content blocks stay blocks", "read_file", protocol.ToolResult{Success: true, Content: []protocol.ContentBlock{{Type: protocol.ContentImage}}}, "", false},
		{"wrong field type", "glob", ok(map[string]any{"files": "a"}), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, has := modelText(c.tool, c.res)
			if got != c.want || has != c.has {
				t.Errorf("modelText = %q, %v; want %q, %v", got, has, c.want, c.has)
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

// TestModelShapeMediaAreBlocks: in the model shape (the default) read_file
// of a PNG is an MCP image block and of a PDF (STEERABLE_PDF_DOCUMENT) its
// pages' text plus an embedded resource with the PDF's bytes; no text
// block carries base64, and structuredContent leaves out the page text the
// blocks carry.
func TestModelShapeMediaAreBlocks(t *testing.T) {
	h := newHarness(t, setup{results: resultsModel, deps: func(_ *testing.T, d *tools.Deps) { d.Media.PDFDocument = true }})
	png := mediatest.PNG(mediatest.Gradient(64, 48))
	pdf := mediatest.PDF(mediatest.PDFOptions{Pages: 2})
	writeFile(t, filepath.Join(h.dir, "shot.png"), string(png))
	writeFile(t, filepath.Join(h.dir, "doc.pdf"), string(pdf))
	cases := []struct {
		path string
		want []string // content block types
		blob []byte   // the bytes of the image or resource block
	}{
		{"shot.png", []string{"text", "image", "text"}, png},
		{"doc.pdf", []string{"text", "resource", "text"}, nil},
	}
	for _, c := range cases {
		res := h.call("read_file", map[string]any{"path": c.path})
		if res.IsError {
			t.Fatalf("%s: %s", c.path, text(res, 0))
		}
		var types []string
		for _, b := range res.Content {
			switch b := b.(type) {
			case *mcp.TextContent:
				types = append(types, "text")
				if strings.Contains(b.Text, base64.StdEncoding.EncodeToString(png)[:40]) || strings.Contains(b.Text, "JVBERi0") {
					t.Errorf("%s: base64 in a text block: %.120q", c.path, b.Text)
				}
			case *mcp.ImageContent:
				types = append(types, "image")
				if b.MIMEType != "image/png" || !bytes.Equal(b.Data, c.blob) {
					t.Errorf("%s: image block %s, %d bytes; want the file's PNG", c.path, b.MIMEType, len(b.Data))
				}
			case *mcp.EmbeddedResource:
				types = append(types, "resource")
				if b.Resource.MIMEType != "application/pdf" || !bytes.HasPrefix(b.Resource.Blob, []byte("%PDF-")) {
					t.Errorf("%s: resource %s, %.10q", c.path, b.Resource.MIMEType, b.Resource.Blob)
				}
			default:
				types = append(types, fmt.Sprintf("%T", b))
			}
		}
		if !slices.Equal(types, c.want) {
			t.Errorf("%s: blocks %v, want %v", c.path, types, c.want)
		}
		if _, has := data(t, res)["content"]; has {
			t.Errorf("%s: structuredContent repeats the page text the blocks carry", c.path)
		}
	}
}
