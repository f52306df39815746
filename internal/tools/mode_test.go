package tools

import (
	"testing"

	"steerable.dev/sidecar/protocol"
)

// TestClassifyIgnoresCase: the exact names and the prefix rules apply
// whatever the case (DELETE_USER is destructive, Get_User read).
func TestClassifyIgnoresCase(t *testing.T) {
	tests := []struct {
		name string
		want protocol.Mode
	}{
		{"DELETE_USER", protocol.ModeDestructive},
		{"Delete_User", protocol.ModeDestructive},
		{"dElEtE_x", protocol.ModeDestructive},
		{"DROP_TABLE", protocol.ModeDestructive},
		{"Archive_Thread", protocol.ModeDestructive},
		{"REMOVE_", protocol.ModeDestructive}, // the prefix alone still matches
		{"Get_User", protocol.ModeRead},
		{"GET_USER", protocol.ModeRead},
		{"List_Issues", protocol.ModeRead},
		{"SEARCH_docs", protocol.ModeRead},
		{"Read_Config", protocol.ModeRead},
		{"CREATE_EVENT", protocol.ModeSafeWrite},
		{"Update_Row", protocol.ModeSafeWrite},
		{"ADD_label", protocol.ModeSafeWrite},
		{"Set_Flag", protocol.ModeSafeWrite},
		{"EXEC_query", protocol.ModeLocal},
		{"Shell_Run", protocol.ModeLocal},
		{"WEB_FETCH", protocol.ModeRead},
		{"Tool_Search", protocol.ModeRead},
		{"Ask_User", protocol.ModeRead},
		{"READ_FILE", protocol.ModeRead},
		{"Write_File", protocol.ModeSafeWrite},
		{"APPLY_PATCH", protocol.ModeSafeWrite},
		{"BASH", protocol.ModeLocal},
		{"Run_Code", protocol.ModeLocal},
		// Still no rule: the underscore is part of every prefix, and other
		// separators or camelCase are not prefixes.
		{"GETUSER", protocol.ModeLocal},
		{"GetUser", protocol.ModeLocal},
		{"get-user", protocol.ModeLocal},
		{"get.user", protocol.ModeLocal},
		{"deleteUser", protocol.ModeLocal},
		{"mcp__github__delete_repo", protocol.ModeLocal},
		{"WEB_POST", protocol.ModeLocal}, // exact names only: no web_ prefix
		{"Web_Fetcher", protocol.ModeLocal},
	}
	for _, tt := range tests {
		if got := Classify(tt.name, ""); got != tt.want {
			t.Errorf("Classify(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// A declared mode always wins, whatever the name's case.
	if got := Classify("DELETE_USER", protocol.ModeRead); got != protocol.ModeRead {
		t.Errorf("declared mode lost: %q", got)
	}
}

// TestHostToolModeIgnoresCase: a host tool registered without a mode gets
// the case-insensitive classification in its inventory descriptor.
func TestHostToolModeIgnoresCase(t *testing.T) {
	r := NewRegistry()
	tools := []protocol.ToolDescriptor{
		{Name: "DELETE_USER", Description: "d", Parameters: []byte(`{"type":"object"}`)},
		{Name: "Get_User", Description: "g", Parameters: []byte(`{"type":"object"}`)},
	}
	if _, err := NewHostTools(r, NoHost{}).Register(tools); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]protocol.Mode{"DELETE_USER": protocol.ModeDestructive, "Get_User": protocol.ModeRead} {
		e, ok := r.Lookup(name)
		if !ok || e.Desc.Mode != want {
			t.Errorf("%s: mode %q, want %q", name, e.Desc.Mode, want)
		}
	}
}
