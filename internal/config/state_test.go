package config

import "testing"

func TestStateDir(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want Path
	}{
		{map[string]string{}, ""},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/steerable-sidecar"},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/xdg/state"}, "/xdg/state/steerable-sidecar"},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "relative/state"}, "/home/u/.local/state/steerable-sidecar"},
		{map[string]string{"HOME": "relative"}, ""},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/xdg", "STEERABLE_STATE_DIR": "/custom"}, "/custom"},
	}
	for _, tt := range tests {
		if cfg, _ := Load(tt.env); cfg.StateDir != tt.want {
			t.Errorf("Load(%v).StateDir = %q, want %q", tt.env, cfg.StateDir, tt.want)
		}
	}
}
