package config

import (
	"testing"
)

func TestExpandHome(t *testing.T) {
	tests := []struct {
		in, home, want string
		problem        string
	}{
		{"~", "/home/u", "/home/u", ""},
		{"~/", "/home/u", "/home/u", ""},
		{"~/plugins.json", "/home/u", "/home/u/plugins.json", ""},
		{"$HOME/state", "/home/u", "/home/u/state", ""},
		{"${HOME}/a/../b", "/home/u", "/home/u/b", ""},
		{"$HOME", "/home/u/", "/home/u", ""},
		{"/abs/~/x", "/home/u", "/abs/~/x", ""},                         // only a leading ~
		{"relative/x", "/home/u", "relative/x", ""},                     // left to the variable's user
		{"~user/x", "/home/u", "~user/x", ""},                           // not a form the sidecar resolves
		{"$HOMEDIR/x", "/home/u", "$HOMEDIR/x", ""},                     // another variable
		{"${XDG_CONFIG_HOME}/x", "/home/u", "${XDG_CONFIG_HOME}/x", ""}, // no other variable expands
		{"", "/home/u", "", ""},
		{"~/x", "", "", "HOME is not an absolute path"},
		{"$HOME/x", "relative", "", "HOME is not an absolute path"},
		{"/plain", "", "/plain", ""},
		{"/a\x00b", "/home/u", "", "NUL"},
	}
	for _, tt := range tests {
		got, err := expandHome(tt.in, tt.home)
		if !matches(err, tt.problem) || (err == nil && got != tt.want) {
			t.Errorf("expandHome(%q, %q) = %q, %v; want %q, %q", tt.in, tt.home, got, err, tt.want, tt.problem)
		}
	}
}

// TestPathVariablesExpand: every path-valued variable expands ~ and $HOME,
// as an MCP client's JSON passes them literally.
func TestPathVariablesExpand(t *testing.T) {
	env := map[string]string{
		"HOME":                         "/home/u",
		"STEERABLE_PLUGINS_CONFIG":     "~/plugins.json",
		"STEERABLE_PLUGIN_DIR":         "$HOME/plugins",
		"STEERABLE_STATE_DIR":          "${HOME}/state",
		"STEERABLE_WORKSPACE":          "~/project",
		"STEERABLE_BWRAP_PATH":         "~/bin/bwrap",
		"STEERABLE_BASH_PATH":          "$HOME/bin/bash",
		"STEERABLE_SANDBOX_DENY_READ":  "~/.secrets:$HOME/.vault",
		"STEERABLE_SANDBOX_ALLOW_READ": "~/.npmrc",
	}
	cfg, problems := Load(env)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	got := []string{string(cfg.PluginsConfig), string(cfg.PluginDir), string(cfg.StateDir), string(cfg.Workspace), string(cfg.BwrapPath), string(cfg.BashPath)}
	got = append(got, cfg.SandboxDenyRead...)
	got = append(got, cfg.SandboxAllowRead...)
	want := []string{"/home/u/plugins.json", "/home/u/plugins", "/home/u/state", "/home/u/project", "/home/u/bin/bwrap", "/home/u/bin/bash",
		"/home/u/.secrets", "/home/u/.vault", "/home/u/.npmrc"}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("expanded %q, want %q", got, want)
		}
	}
}

// TestPathWithoutHome: a ~ with no home is the variable's problem, named,
// never a path relative to the working directory.
func TestPathWithoutHome(t *testing.T) {
	cfg, problems := Load(map[string]string{"STEERABLE_PLUGINS_CONFIG": "~/plugins.json"})
	if len(problems) != 1 || problems[0].Var != "STEERABLE_PLUGINS_CONFIG" || cfg.PluginsConfig != "" {
		t.Fatalf("cfg.PluginsConfig = %q, problems %v", cfg.PluginsConfig, problems)
	}
	want := `STEERABLE_PLUGINS_CONFIG="~/plugins.json" is invalid: "~/plugins.json" starts with the home directory, but HOME is not an absolute path; allowed a path (~ and $HOME expand)`
	if got := problems[0].Error(); got != want {
		t.Errorf("problem %q\nwant     %q", got, want)
	}
}

func TestExpandPathUsesUserProfileWithoutHome(t *testing.T) {
	got, err := ExpandPath("~/proj", map[string]string{"USERPROFILE": "/users/u"})
	if err != nil || got != "/users/u/proj" {
		t.Errorf("ExpandPath = %q, %v", got, err)
	}
}
