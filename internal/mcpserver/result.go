package mcpserver

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/protocol"
)

// resultMetaKey names the ToolResult flags MCP has no field for, in the
// result's _meta, and the call's id (callId, for tool_undo).
const resultMetaKey = "steerable.dev/toolResult"

// callResult maps a ToolResult to MCP (SPEC §5 mcp): message or error as the
// first text block; data as structuredContent and, for clients that ignore
// structuredContent, as a JSON text block (MCP "Structured Content": a tool
// that returns it SHOULD also return it serialised); success:false as
// isError, so the model reads the error, which names the fix. The flags MCP
// lacks (needsFollowup, terminal, nextAction) travel in _meta. A result
// with content blocks (an image, a PDF, a notebook) sends those instead of
// the message, as MCP image, text and embedded-resource blocks, and its
// JSON text block leaves out data.content, the text the blocks already
// carry.
func callResult(res protocol.ToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{
		IsError: !res.Success,
		Content: []mcp.Content{&mcp.TextContent{Text: resultText(res)}},
		Meta:    mcp.Meta{resultMetaKey: resultFlags(res)},
	}
	if len(res.Content) > 0 {
		out.Content = mcpContent(res.Content, res.Data)
	}
	if len(res.Data) > 0 {
		if b, err := json.Marshal(res.Data); err == nil {
			out.StructuredContent = json.RawMessage(b)
			out.Content = append(out.Content, &mcp.TextContent{Text: metadataText(res, b)})
		}
	}
	return out
}

// shapeResult is res in the shape Options.Results asks for: "model" (issue
// 30) sends a built-in tool's text form (modelResult), and a result of
// content blocks with structuredContent that leaves out data.content, the
// text the blocks already carry; anything else is callResult's shape.
func shapeResult(tool string, res protocol.ToolResult, results string) *mcp.CallToolResult {
	if results != resultsModel {
		return callResult(res)
	}
	if r, ok := modelResult(tool, res); ok {
		return r
	}
	r := callResult(res)
	if len(res.Content) > 0 {
		if b, err := json.Marshal(without(res.Data, []string{"content"})); err == nil {
			r.StructuredContent = json.RawMessage(b)
		}
	}
	return r
}

// resultsModel is Options.Results for the model-first shape.
const resultsModel = "model"

// modelResult is res in the model-first shape: the tool's text form as the
// only text block, and structuredContent without the fields that text
// carries (modelMoved). ok is false when the tool has no text form.
func modelResult(tool string, res protocol.ToolResult) (*mcp.CallToolResult, bool) {
	text, ok := modelText(tool, res)
	if !ok {
		return nil, false
	}
	out := &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: text}},
		Meta:    mcp.Meta{resultMetaKey: resultFlags(res)},
	}
	if b, err := json.Marshal(without(res.Data, modelMoved[tool])); err == nil {
		out.StructuredContent = json.RawMessage(b)
	}
	return out, true
}

// without is a copy of data without keys.
func without(data map[string]any, keys []string) map[string]any {
	out := maps.Clone(data)
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// mcpContent maps content blocks one to one: text → text, image → image,
// document → an embedded resource named by the file's URI.
func mcpContent(blocks []protocol.ContentBlock, data map[string]any) []mcp.Content {
	out := make([]mcp.Content, 0, len(blocks)+1)
	for _, b := range blocks {
		switch b.Type {
		case protocol.ContentImage:
			out = append(out, &mcp.ImageContent{MIMEType: b.MimeType, Data: b.Data})
		case protocol.ContentDocument:
			out = append(out, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: documentURI(data), MIMEType: b.MimeType, Blob: b.Data}})
		default:
			out = append(out, &mcp.TextContent{Text: b.Text})
		}
	}
	return out
}

// documentURI names an embedded document: the file it was read from.
func documentURI(data map[string]any) string {
	if p, ok := data["path"].(string); ok && p != "" {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
	}
	return "steerable:document"
}

// metadataText is data as JSON text; beside content blocks, without the
// text they carry.
func metadataText(res protocol.ToolResult, all []byte) string {
	if _, ok := res.Data["content"]; !ok || len(res.Content) == 0 {
		return string(all)
	}
	b, err := json.Marshal(without(res.Data, []string{"content"}))
	if err != nil {
		return string(all)
	}
	return string(b)
}

// resultText is what the model reads first: the message of a success; the
// error of a failure, then its message and next action when it has them.
func resultText(res protocol.ToolResult) string {
	parts := []string{res.Message}
	if !res.Success {
		parts = []string{res.Error, res.Message}
	}
	if res.NextAction != "" {
		parts = append(parts, "Next: "+res.NextAction)
	}
	parts = nonEmpty(parts)
	if len(parts) == 0 {
		if res.Success {
			return "ok"
		}
		return "the tool failed without saying why"
	}
	return strings.Join(parts, "\n")
}

func nonEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func resultFlags(res protocol.ToolResult) map[string]any {
	flags := map[string]any{"success": res.Success}
	if res.NeedsFollowup {
		flags["needsFollowup"] = true
	}
	if res.Terminal {
		flags["terminal"] = true
	}
	if res.NextAction != "" {
		flags["nextAction"] = res.NextAction
	}
	return flags
}

// refusal is an isError result the server itself returns (the workspace
// moved): the model reads why and tells the user.
func refusal(msg string) *mcp.CallToolResult {
	return callResult(protocol.ToolResult{Success: false, Terminal: true, Error: msg})
}

// wireResult is a tools/call result already in its JSON form, for a call
// the SDK hands over (direct.go answers the rest itself). The SDK's own
// CallToolResult encoding nests three MarshalJSON levels, and encoding/json
// re-validates every level's output: a 4 KiB file was scanned five times.
// Built here in one pass, the encoder only validates it once.
type wireResult struct {
	mcp.ResultBase
	json []byte
}

// MarshalJSON implements json.Marshaler.
func (w *wireResult) MarshalJSON() ([]byte, error) { return w.json, nil }

// encodeResult is r in its wire form, for the SDK to send.
func encodeResult(r *mcp.CallToolResult) (mcp.Result, error) {
	b, err := appendResult(make([]byte, 0, resultSize(r)), r)
	if err != nil {
		return nil, err
	}
	return &wireResult{json: b}, nil
}

// resultSize is about the encoded size of r: the buffer appendResult fills
// without growing.
func resultSize(r *mcp.CallToolResult) int {
	n := 512
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			n += len(tc.Text) + len(tc.Text)/8 // quotes and newlines are escaped
		}
	}
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		n += len(raw)
	}
	return n
}

// appendResult appends r in the wire form MCP's CallToolResult has, in one
// pass for the shape callResult builds (text content blocks,
// structuredContent, isError, _meta); any other shape is the SDK's
// encoding.
func appendResult(dst []byte, r *mcp.CallToolResult) ([]byte, error) {
	if !textOnly(r.Content) {
		b, err := json.Marshal(r)
		return append(dst, b...), err
	}
	b := bytes.NewBuffer(dst)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	b.WriteString(`{"content":[`)
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":`)
		if err := enc.Encode(c.(*mcp.TextContent).Text); err != nil {
			return nil, err
		}
		trimNewline(b)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if raw, ok := r.StructuredContent.(json.RawMessage); ok && len(raw) > 0 {
		b.WriteString(`,"structuredContent":`)
		b.Write(raw)
	}
	if r.IsError {
		b.WriteString(`,"isError":true`)
	}
	if len(r.Meta) > 0 {
		b.WriteString(`,"_meta":`)
		if err := enc.Encode(r.Meta); err != nil {
			return nil, err
		}
		trimNewline(b)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// textOnly reports whether every content block is text (with no
// annotations or _meta, which callResult never sets): the shape
// appendResult writes itself.
func textOnly(content []mcp.Content) bool {
	for _, c := range content {
		tc, ok := c.(*mcp.TextContent)
		if !ok || tc.Annotations != nil || len(tc.Meta) > 0 {
			return false
		}
	}
	return true
}

// trimNewline drops the newline json.Encoder ends every value with.
func trimNewline(b *bytes.Buffer) { b.Truncate(b.Len() - 1) }
