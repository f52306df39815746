package plugins

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/protocol"
)

func TestResultBudgetSpansBlocks(t *testing.T) {
	m := mapping{plugin: "p", tool: "t", maxOutput: 100}
	r := m.result(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: strings.Repeat("a", 80)},
		&mcp.TextContent{Text: strings.Repeat("b", 80)},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "x:", Blob: []byte{1, 2, 3}}},
		&mcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 1000)},
	}, StructuredContent: map[string]any{"big": strings.Repeat("c", 200)}})
	if !r.Success || r.Data["truncated"] != true || r.Data["structured"] != nil || r.Data["structuredOmitted"] == nil {
		t.Errorf("%+v", r)
	}
	if n := strings.Count(r.Message, "a") + strings.Count(r.Message, "b"); n > 100 {
		t.Errorf("%d bytes of text through a 100-byte budget", n)
	}
	for _, want := range []string{"[resource x:, 3 bytes of binary data, not shown]", "[audio audio/wav, 1000 bytes, not shown]"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message lacks %q: %q", want, r.Message)
		}
	}
	empty := m.result(&mcp.CallToolResult{})
	if !empty.Success || empty.Message != "plugin tool t returned no text content" {
		t.Errorf("empty: %+v", empty)
	}
	failed := m.result(&mcp.CallToolResult{IsError: true})
	if failed.Success || !failed.NeedsFollowup || failed.Error != "plugin tool t reported an error: (no message)" || protocol.IsTerminal(failed) {
		t.Errorf("isError without text: %+v", failed)
	}
}
