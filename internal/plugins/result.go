package plugins

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/protocol"
)

// maxErrorText bounds the error string of a result the server marked
// isError; the whole text stays in data.content.
const maxErrorText = 2000

// mapping is how one tool's results are mapped: who produced them, and the
// budget of text and structured content one result may carry.
type mapping struct {
	plugin, tool string // the plugin, and the tool's name on its server
	prefix       string // the plugin's toolPrefix: the registered name is prefix+tool
	maxOutput    int
	sandbox      protocol.PluginSandbox
}

// name is the tool's registered name, the one the model called.
func (m mapping) name() string { return m.prefix + m.tool }

// result maps a CallToolResult faithfully and boundedly (SPEC §4.7): text
// content → data.content and message; structuredContent → data.structured;
// images, audio and resources → described, never dumped; isError →
// success:false, needsFollowup:true. Text over the budget keeps its head
// and tail around a marker, and data.truncated says so.
func (m mapping) result(r *mcp.CallToolResult) protocol.ToolResult {
	budget := m.maxOutput
	blocks := make([]map[string]any, 0, len(r.Content))
	var texts []string
	truncated := false
	for _, c := range r.Content {
		block, text, cut := describe(c, &budget)
		blocks = append(blocks, block)
		truncated = truncated || cut
		if text != "" {
			texts = append(texts, text)
		}
	}
	data := map[string]any{"content": blocks, "plugin": m.plugin, "tool": m.tool, "_sandbox": m.sandbox}
	if r.StructuredContent != nil {
		raw, err := json.Marshal(r.StructuredContent)
		switch {
		case err != nil:
			data["structuredError"] = err.Error()
		case len(raw) > m.maxOutput:
			data["structuredOmitted"] = fmt.Sprintf("%d bytes of structured content exceed the %d-byte limit (STEERABLE_PLUGIN_MAX_OUTPUT_BYTES)", len(raw), m.maxOutput)
			truncated = true
		default:
			data["structured"] = json.RawMessage(raw)
		}
	}
	if truncated {
		data["truncated"] = true
	}
	message := strings.Join(texts, "\n")
	if r.IsError {
		res := protocol.ToolResult{Success: false, NeedsFollowup: true, Message: message, Data: data}
		res.Error = fmt.Sprintf("plugin tool %s reported an error: %s", m.name(), firstNonEmpty(clip.Within(message, maxErrorText), "(no message)"))
		return res
	}
	if message == "" {
		message = fmt.Sprintf("plugin tool %s returned no text content", m.name())
	}
	return protocol.ToolResult{Success: true, Message: message, Data: data}
}

// describe maps one content block; text is what it adds to the message.
// budget is the text still allowed in this result.
func describe(c mcp.Content, budget *int) (block map[string]any, text string, cut bool) {
	switch c := c.(type) {
	case *mcp.TextContent:
		t, cut := spend(c.Text, budget)
		return map[string]any{"type": "text", "text": t}, t, cut
	case *mcp.ImageContent:
		return binary("image", c.MIMEType, len(c.Data))
	case *mcp.AudioContent:
		return binary("audio", c.MIMEType, len(c.Data))
	case *mcp.ResourceLink:
		b := map[string]any{"type": "resource_link", "uri": c.URI, "name": c.Name}
		if c.MIMEType != "" {
			b["mimeType"] = c.MIMEType
		}
		return b, fmt.Sprintf("[resource link %s]", c.URI), false
	case *mcp.EmbeddedResource:
		return embedded(c.Resource, budget)
	}
	return map[string]any{"type": "unknown"}, "[a content block of an unknown type, not shown]", false
}

// binary describes image or audio data without its bytes.
func binary(kind, mime string, n int) (map[string]any, string, bool) {
	return map[string]any{"type": kind, "mimeType": mime, "bytes": n, "note": kind + " data is not shown"},
		fmt.Sprintf("[%s %s, %d bytes, not shown]", kind, mime, n), false
}

func embedded(r *mcp.ResourceContents, budget *int) (map[string]any, string, bool) {
	if r == nil {
		return map[string]any{"type": "resource"}, "", false
	}
	b := map[string]any{"type": "resource", "uri": r.URI}
	if r.MIMEType != "" {
		b["mimeType"] = r.MIMEType
	}
	if len(r.Blob) > 0 {
		b["bytes"], b["note"] = len(r.Blob), "binary resource data is not shown"
		return b, fmt.Sprintf("[resource %s, %d bytes of binary data, not shown]", r.URI, len(r.Blob)), false
	}
	t, cut := spend(r.Text, budget)
	b["text"] = t
	return b, t, cut
}

// spend takes s from the budget, clipping it when it does not fit.
func spend(s string, budget *int) (string, bool) {
	if len(s) <= *budget {
		*budget -= len(s)
		return s, false
	}
	out := clip.Within(s, *budget)
	*budget = 0
	return out, true
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
