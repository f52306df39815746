package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJournalRoot(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := base + "/ws"
	os.Mkdir(ws, 0o755)
	os.WriteFile(base+"/file", nil, 0o644)
	os.Symlink(ws, base+"/link-to-ws")
	tests := []struct {
		stateDir, wantDir, wantMsg string
	}{
		{base + "/state", base + "/state/journal", "apply_patch rollback journal in " + base + "/state/journal"},
		{"", "", "neither STEERABLE_STATE_DIR, XDG_STATE_HOME nor HOME is set"},
		{"relative/state", "", "is not absolute"},
		{ws + "/.state", "", "is inside the workspace"},
		{base + "/link-to-ws/state", "", "is inside the workspace"},
		{base + "/file/state", "", "not a directory"},
	}
	for _, tt := range tests {
		dir, msg := journalRoot(tt.stateDir, ws)
		if dir != tt.wantDir || !strings.Contains(msg, tt.wantMsg) {
			t.Errorf("journalRoot(%q) = %q, %q; want %q, %q", tt.stateDir, dir, msg, tt.wantDir, tt.wantMsg)
		}
		if dir == "" && !strings.Contains(msg, "can leave it half applied") {
			t.Errorf("journalRoot(%q): %q does not say what is lost", tt.stateDir, msg)
		}
	}
	if _, err := os.Stat(base + "/state"); err == nil {
		t.Error("journalRoot created the state directory; the first commit should")
	}
}
