package mcpserver

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/protocol"
)

// resultMetaKey names the ToolResult flags MCP has no field for, in the
// result's _meta.
const resultMetaKey = "steerable.dev/toolResult"

// callResult maps a ToolResult to MCP (SPEC §5 mcp): message or error as the
// first text block; data as structuredContent and, for clients that ignore
// structuredContent, as a JSON text block (MCP "Structured Content": a tool
// that returns it SHOULD also return it serialised); success:false as
// isError, so the model reads the error, which names the fix. The flags MCP
// lacks (needsFollowup, terminal, nextAction) travel in _meta.
func callResult(res protocol.ToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{
		IsError: !res.Success,
		Content: []mcp.Content{&mcp.TextContent{Text: resultText(res)}},
		Meta:    mcp.Meta{resultMetaKey: resultFlags(res)},
	}
	if len(res.Data) > 0 {
		if b, err := json.Marshal(res.Data); err == nil {
			out.StructuredContent = json.RawMessage(b)
			out.Content = append(out.Content, &mcp.TextContent{Text: string(b)})
		}
	}
	return out
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
