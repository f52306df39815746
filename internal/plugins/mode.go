package plugins

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// modeOf maps an MCP tool's annotations onto a mode (SPEC §3, §4.7):
// readOnlyHint → read; else destructiveHint → destructive; else
// idempotentHint → safe_write; else openWorldHint → external. Only hints
// the server states count: MCP's own defaults (destructiveHint and
// openWorldHint default to true) describe nothing about this tool. With no
// hint the tool's own name is classified like any tool's (the exact-name
// table, the get_/delete_/… prefixes), else local: unknown effects require
// consent. The name is the server's, without the toolPrefix, which is ours.
func modeOf(t *mcp.Tool) protocol.Mode {
	if a := t.Annotations; a != nil {
		switch {
		case a.ReadOnlyHint:
			return protocol.ModeRead
		case a.DestructiveHint != nil && *a.DestructiveHint:
			return protocol.ModeDestructive
		case a.IdempotentHint:
			return protocol.ModeSafeWrite
		case a.OpenWorldHint != nil && *a.OpenWorldHint:
			return protocol.ModeExternal
		}
	}
	return tools.Classify(t.Name, "")
}
