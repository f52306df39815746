package lsp

import (
	"errors"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
		wantNames         []string
	}{
		{"two servers sorted", `{"lspServers":{"z":{"command":"zls","filePatterns":["**/*.zig"]},"go":{"command":"gopls","filePatterns":["**/*.go"],"env":{"A":"b"}}}}`, "", []string{"go", "z"}},
		{"no key", `{"servers":{}}`, "unknown field", nil},
		{"missing object", `{}`, `no "lspServers" object`, nil},
		{"empty command", `{"lspServers":{"x":{"command":" ","filePatterns":["*.x"]}}}`, `server "x": "command" is empty`, nil},
		{"no patterns", `{"lspServers":{"x":{"command":"x"}}}`, `"filePatterns" is empty`, nil},
		{"bad glob", `{"lspServers":{"x":{"command":"x","filePatterns":["[a"]}}}`, `not a valid glob`, nil},
		{"settle range", `{"lspServers":{"x":{"command":"x","filePatterns":["*.x"],"settleMs":99999}}}`, `outside 0..10000`, nil},
		{"null server", `{"lspServers":{"x":null}}`, `is null`, nil},
		{"not json", `{`, `STEERABLE_LSP_CONFIG`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := ParseConfig([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range specs {
				names = append(names, s.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.wantNames, ",") {
				t.Errorf("names = %v, want %v", names, tt.wantNames)
			}
		})
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add(`{"lspServers":{"go":{"command":"gopls","filePatterns":["**/*.go"]}}}`)
	f.Add(`{"lspServers":{"x":{"command":"x","filePatterns":["[a"],"settings":{"a":{"b":1}}}}}`)
	f.Fuzz(func(t *testing.T, in string) {
		specs, err := ParseConfig([]byte(in))
		if err != nil {
			return
		}
		for _, s := range specs {
			if s.Command == "" || len(s.FilePatterns) == 0 {
				t.Fatalf("accepted an unusable server: %+v", s)
			}
			s.Matches("a/b.go")
		}
	})
}

func TestResolve(t *testing.T) {
	found := map[string]string{"gopls": "/usr/bin/gopls", "pyright-langserver": "/work/ws/node_modules/.bin/pyright-langserver",
		"basedpyright-langserver": "/opt/bin/basedpyright-langserver", "clangd": "/usr/bin/clangd"}
	look := func(name string) (string, error) {
		if p, ok := found[name]; ok {
			return p, nil
		}
		return "", errors.New("not found")
	}
	configured := []Spec{{Name: "c", Command: "my-clangd", FilePatterns: []string{"**/*.c"}}}
	specs, skipped := Resolve(configured, []string{"/work/ws"}, look)
	var got []string
	for _, s := range specs {
		got = append(got, s.Name+"="+s.Command)
	}
	want := "c=my-clangd,go=/usr/bin/gopls,python=/opt/bin/basedpyright-langserver"
	if strings.Join(got, ",") != want {
		t.Errorf("servers = %v, want %s", got, want)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], "inside the writable /work/ws") {
		t.Errorf("skipped = %v, want pyright inside the workspace", skipped)
	}
}

func TestSpecMatches(t *testing.T) {
	s := Defaults()[0]
	for path, want := range map[string]bool{"a.go": true, "x/y/z.go": true, "a.gox": false, "go.mod": false} {
		if got := s.Matches(path); got != want {
			t.Errorf("Matches(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestSettingsSection(t *testing.T) {
	settings := []byte(`{"python":{"analysis":{"typeCheckingMode":"strict"}},"gopls":{"staticcheck":true}}`)
	tests := []struct {
		section string
		want    any
	}{
		{"python.analysis.typeCheckingMode", "strict"},
		{"gopls", map[string]any{"staticcheck": true}},
		{"python.missing", nil},
		{"gopls.staticcheck.deeper", nil},
	}
	for _, tt := range tests {
		got := settingsSection(settings, tt.section)
		if gm, ok := got.(map[string]any); ok {
			if len(gm) != 1 || gm["staticcheck"] != true {
				t.Errorf("%s = %v", tt.section, got)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %v, want %v", tt.section, got, tt.want)
		}
	}
	if settingsSection(nil, "x") != nil {
		t.Error("no settings must answer null")
	}
}
