package tools

import (
	"steerable.dev/sidecar/internal/askuser"
	"steerable.dev/sidecar/protocol"
)

// minimalTools is the minimal strategy's fixed set (SPEC §3).
var minimalTools = map[string]bool{"bash": true, "read_file": true, "write_file": true, "edit_file": true}

// askUserName is offered to the model only with askUser:true (opt-in per
// request).
const askUserName = askuser.Name

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
		if err := r.searchWired(); err != nil {
			return nil, err
		}
		keep = func(d protocol.ToolDescriptor) bool {
			return d.Exposure == protocol.ExposureDirect || d.Name == toolSearchName
		}
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

// searchWired checks that the progressive strategy can keep its promise:
// the tool_search it offers is registered here and searches this registry's
// deferred tier. Otherwise the model would be offered a tool that cannot
// find (or cannot run) what it looks for.
func (r *Registry) searchWired() error {
	e, ok := r.Lookup(toolSearchName)
	if !ok {
		return protocol.Errorf(protocol.CodePolicyDenied,
			"strategy %q offers %s, which is not registered in this sidecar; use %q or %q",
			protocol.StrategyProgressive, toolSearchName, protocol.StrategyFull, protocol.StrategyMinimal)
	}
	if ts, ok := e.Tool.(*ToolSearch); !ok || !ts.Searches(r) {
		return protocol.Errorf(protocol.CodePolicyDenied,
			"strategy %q needs %s wired to this sidecar's registry, but the registered one (source %s) is not; use %q or %q",
			protocol.StrategyProgressive, toolSearchName, e.Desc.Source, protocol.StrategyFull, protocol.StrategyMinimal)
	}
	return nil
}
