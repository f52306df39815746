package piped

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestLookCommand(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing-here")
	tests := []struct {
		cmd, wantErr string
	}{
		{"sh", ""},
		{"steerable-no-such-command", `command "steerable-no-such-command" is not on the sidecar's PATH`},
		{missing, "command " + missing + ":"},
	}
	for _, tt := range tests {
		if tt.cmd == "sh" && runtime.GOOS == "windows" {
			continue // no sh on PATH there
		}
		got, err := LookCommand(tt.cmd)
		switch {
		case tt.wantErr == "" && (err != nil || !filepath.IsAbs(got)):
			t.Errorf("LookCommand(%q) = %q, %v; want an absolute path", tt.cmd, got, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("LookCommand(%q) error = %v; want %q", tt.cmd, err, tt.wantErr)
		}
	}
}
