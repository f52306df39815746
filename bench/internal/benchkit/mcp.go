package benchkit

import (
	"encoding/json"
	"fmt"
)

// The reference peers are MCP servers (the filesystem server from npm). They
// are driven by the same Proc as the sidecar; only these calls differ.

// mcpInitialize is the initialize request of the 2025-06-18 revision.
var mcpInitialize = map[string]any{
	"protocolVersion": "2025-06-18",
	"capabilities":    map[string]any{},
	"clientInfo":      map[string]any{"name": "bench", "version": "1"},
}

// MCPInitialize sends initialize and waits for its reply: the moment an MCP
// server can first answer, its counterpart of the sidecar's ready line.
func (p *Proc) MCPInitialize() error {
	_, err := p.Call("initialize", mcpInitialize)
	return err
}

// MCPHandshake is MCPInitialize followed by notifications/initialized, after
// which the server takes tool calls.
func (p *Proc) MCPHandshake() error {
	if err := p.MCPInitialize(); err != nil {
		return err
	}
	return p.Notify("notifications/initialized", nil)
}

// MCPTool calls an MCP tool through tools/call; a result with isError set is
// an error here.
func (p *Proc) MCPTool(name string, args any) error {
	raw, err := p.Call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return err
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		return fmt.Errorf("%s: %s", name, raw)
	}
	return nil
}
