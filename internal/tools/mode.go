package tools

import (
	"strings"

	"steerable.dev/sidecar/protocol"
)

// exactModes is the exact-name table of SPEC §3. Web tools are named
// exactly, not by a web_ prefix, so a future write-flavoured web_* tool does
// not inherit the read posture (tools-spec "Web tools").
var exactModes = map[string]protocol.Mode{
	"web_search":  protocol.ModeRead,
	"web_fetch":   protocol.ModeRead,
	"tool_search": protocol.ModeRead,
	"ask_user":    protocol.ModeRead,
	"read_file":   protocol.ModeRead,
	"write_file":  protocol.ModeSafeWrite,
	"edit_file":   protocol.ModeSafeWrite,
	"apply_patch": protocol.ModeSafeWrite,
	"bash":        protocol.ModeLocal,
	"run_code":    protocol.ModeLocal,
}

// prefixModes are the pattern rules of tools-spec "ToolMode", in order.
var prefixModes = []struct {
	prefixes []string
	mode     protocol.Mode
}{
	{[]string{"get_", "list_", "read_", "search_"}, protocol.ModeRead},
	{[]string{"create_", "update_", "add_", "set_"}, protocol.ModeSafeWrite},
	{[]string{"delete_", "remove_", "archive_", "drop_"}, protocol.ModeDestructive},
	{[]string{"local_", "shell_", "exec_"}, protocol.ModeLocal},
}

// Classify resolves a tool's mode: the declared mode (registration, or an MCP
// plugin's annotations mapped by the caller), then the exact-name table, then
// the prefix rules, else local: unknown effects require consent (fail safe).
// Names and prefixes are compared ignoring case: DELETE_USER is as
// destructive as delete_user, and Get_User reads like get_user. (Tool names
// are ASCII, so this is ASCII case folding.)
func Classify(name string, declared protocol.Mode) protocol.Mode {
	if declared != "" {
		return declared
	}
	name = strings.ToLower(name)
	if m, ok := exactModes[name]; ok {
		return m
	}
	for _, rule := range prefixModes {
		for _, p := range rule.prefixes {
			if strings.HasPrefix(name, p) {
				return rule.mode
			}
		}
	}
	return protocol.ModeLocal
}
