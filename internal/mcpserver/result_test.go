package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

func TestResultText(t *testing.T) {
	for _, tc := range []struct {
		res  protocol.ToolResult
		want string
	}{
		{protocol.ToolResult{Success: true, Message: "done"}, "done"},
		{protocol.ToolResult{Success: true}, "ok"},
		{protocol.ToolResult{Success: false, Error: "stale: read it again"}, "stale: read it again"},
		{protocol.ToolResult{Success: false, Error: "approval_denied", Message: "the user denied this call"},
			"approval_denied\nthe user denied this call"},
		{protocol.ToolResult{Success: true, Message: "partial", NextAction: "read the rest with offset"},
			"partial\nNext: read the rest with offset"},
		{protocol.ToolResult{Success: false}, "the tool failed without saying why"},
	} {
		if got := resultText(tc.res); got != tc.want {
			t.Errorf("resultText(%+v) = %q, want %q", tc.res, got, tc.want)
		}
	}
}

func TestCallResultFlags(t *testing.T) {
	res := callResult(protocol.ToolResult{Success: false, Terminal: true, Error: "x", NextAction: "stop"})
	want := map[string]any{"success": false, "terminal": true, "nextAction": "stop"}
	if d := cmp.Diff(want, res.Meta[resultMetaKey]); d != "" || !res.IsError || res.StructuredContent != nil {
		t.Errorf("flags (-want +got):\n%s; isError %v, structuredContent %v", d, res.IsError, res.StructuredContent)
	}
}

// TestCallResultContentBlocks: content blocks map one to one onto MCP's
// (an image as an image block with its bytes, never base64 in text; a
// document as an embedded resource named by the file), and the JSON text
// block beside them carries the metadata without data.content.
func TestCallResultContentBlocks(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake")
	res := callResult(protocol.ToolResult{Success: true, Message: "Read.",
		Data: map[string]any{"path": "/ws/a b.pdf", "content": "page text", "totalPages": 3},
		Content: []protocol.ContentBlock{
			{Type: protocol.ContentText, Text: "page text"},
			{Type: protocol.ContentImage, MimeType: "image/png", Data: png},
			{Type: protocol.ContentDocument, MimeType: "application/pdf", Data: []byte("%PDF-1.4")},
		}})
	got, err := json.Marshal(res.Content)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"text","text":"page text"},` +
		`{"type":"image","mimeType":"image/png","data":"` + base64.StdEncoding.EncodeToString(png) + `"},` +
		`{"type":"resource","resource":{"uri":"file:///ws/a%20b.pdf","mimeType":"application/pdf","blob":"JVBERi0xLjQ="}},` +
		`{"type":"text","text":"{\"path\":\"/ws/a b.pdf\",\"totalPages\":3}"}]`
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("content (-want +got):\n%s", d)
	}
	if !strings.Contains(string(res.StructuredContent.(json.RawMessage)), `"content":"page text"`) {
		t.Errorf("structuredContent lost data.content: %s", res.StructuredContent)
	}
	wire, err := appendResult(nil, res)
	if err != nil || !strings.Contains(string(wire), `"type":"image"`) {
		t.Errorf("wire form %s, %v", wire, err)
	}
}
