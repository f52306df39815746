package tools

import (
	"steerable.dev/sidecar/protocol"
)

// minimalTools is the minimal strategy's fixed set (SPEC §3).
var minimalTools = map[string]bool{"bash": true, "read_file": true, "write_file": true, "edit_file": true}

// askUserName is offered to the model only with askUser:true (opt-in per
// request).
const askUserName = "ask_user"

// List answers tool.list. The inventory view is every registered tool,
// hidden ones included (the host's introspection); the model view is what to
// offer the model, shaped by the strategy.
func (r *Registry) List(p protocol.ToolListParams) ([]protocol.ToolDescriptor, error) {
	all := r.Descriptors()
	if p.View == "" || p.View == protocol.ViewInventory {
		return all, nil
	}
	var keep func(protocol.ToolDescriptor) bool
	switch p.Strategy {
	case "", protocol.StrategyFull:
		keep = func(d protocol.ToolDescriptor) bool { return d.Exposure == protocol.ExposureDirect }
	case protocol.StrategyMinimal:
		keep = func(d protocol.ToolDescriptor) bool { return minimalTools[d.Name] }
	case protocol.StrategyProgressive:
		return nil, protocol.Errorf(protocol.CodePolicyDenied,
			"strategy %q needs the tool_search tool, which this build does not provide yet; use %q or %q",
			protocol.StrategyProgressive, protocol.StrategyFull, protocol.StrategyMinimal)
	default:
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "unknown strategy %q: use full, minimal or progressive", p.Strategy)
	}
	out := []protocol.ToolDescriptor{}
	for _, d := range all {
		if d.Name == askUserName {
			if p.AskUser {
				out = append(out, d)
			}
			continue
		}
		if keep(d) {
			out = append(out, d)
		}
	}
	return out, nil
}
