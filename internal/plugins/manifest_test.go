package plugins

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"steerable.dev/sidecar/protocol"
)

var testDecoder = Decoder{Expander{Workspace: "/ws", Home: "/home/me", LookupEnv: func(k string) (string, bool) {
	if k == "GH" {
		return "ghp_123", true
	}
	return "", false
}}}

func TestConfigDecodesEveryShape(t *testing.T) {
	cases := []struct {
		name, file string
		want       []Spec
	}{
		{"ours", `{"plugins":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","${workspaceFolder}"],
			"toolPrefix":"fs__","exposure":"direct","sandbox":{"network":false,"writable":["~/notes"]},"cwd":"sub"}}}`,
			[]Spec{{Name: "fs", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/ws"}, Cwd: "/ws/sub",
				ToolPrefix: "fs__", Exposure: protocol.ExposureDirect, Sandbox: SandboxSpec{Writable: []string{"/home/me/notes"}}}}},
		{"claude desktop", `{"globalShortcut":"x","mcpServers":{"github":{"command":"docker","args":["run","ghcr.io/github/github-mcp-server"],
			"env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"${env:GH}"}},"zeta":{"command":"./zeta","alwaysAllow":["x"]}}}`,
			[]Spec{{Name: "github", Command: "docker", Args: []string{"run", "ghcr.io/github/github-mcp-server"}, Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_123"}},
				{Name: "zeta", Command: "/etc/zeta", Warnings: []string{"alwaysAllow"}}}},
		{"vscode mcp.json", `{"inputs":[],"servers":{"time":{"type":"stdio","command":"uvx","args":["mcp-server-time"]}}}`,
			[]Spec{{Name: "time", Command: "uvx", Args: []string{"mcp-server-time"}}}},
		{"vscode settings", `{"editor.fontSize":12,"mcp":{"servers":{"m":{"command":"m","disabled":true}}}}`,
			[]Spec{{Name: "m", Command: "m", Disabled: true}}},
		{"order is the file's", `{"plugins":{"b":{"command":"b"},"a":{"command":"a"},"c":{"command":"c","sandbox":"none"}}}`,
			[]Spec{{Name: "b", Command: "b"}, {Name: "a", Command: "a"}, {Name: "c", Command: "c", Sandbox: SandboxSpec{None: true}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := testDecoder.Config("/etc/plugins.json", []byte(c.file))
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.want {
				c.want[i].Source, c.want[i].Origin = SourceInstalled, "/etc/plugins.json"
			}
			if diff := cmp.Diff(c.want, got, cmpopts.IgnoreFields(Spec{}, "Register", "Invalid")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, s := range got {
				if s.Invalid != nil {
					t.Errorf("%s: %v", s.Name, s.Invalid)
				}
			}
		})
	}
}

func TestConfigRefusesBadFiles(t *testing.T) {
	cases := map[string]string{
		"not json":      "{\n\"plugins\": {\n,}",
		"array":         `[{"command":"x"}]`,
		"no entries":    `{"tools":{}}`,
		"entries array": `{"plugins":[{"command":"x"}]}`,
		"duplicate":     `{"plugins":{"a":{"command":"x"},"a":{"command":"y"}}}`,
		"across keys":   `{"plugins":{"a":{"command":"x"}},"mcpServers":{"a":{"command":"y"}}}`,
	}
	want := map[string]string{
		"not json": "is not a JSON object: invalid character ',' looking for beginning of object key string (line 3)",
		"array":    "is not a JSON object", "no entries": `has no "plugins", "mcpServers" or "servers" object`,
		"entries array": `"plugins" must be an object`, "duplicate": `plugin "a" is defined twice`, "across keys": `plugin "a" is defined twice`,
	}
	for name, file := range cases {
		_, err := testDecoder.Config("/p.json", []byte(file))
		if err == nil || !strings.Contains(err.Error(), want[name]) || !strings.Contains(err.Error(), "/p.json") {
			t.Errorf("%s: %v, want it to name /p.json and say %q", name, err, want[name])
		}
	}
}

func TestEntryErrorsNameTheFieldAndTheFix(t *testing.T) {
	cases := []struct{ entry, want string }{
		{`{}`, `"command" is missing or empty`},
		{`{"command":"  "}`, `"command" is missing or empty`},
		{`{"command":5}`, `"command" must be a string, got 5`},
		{`{"command":"x","args":"-v"}`, `"args" must be a list of strings`},
		{`{"command":"x","args":[1]}`, `"args" must be a list of strings`},
		{`{"command":"x","env":{"A":1}}`, `"env" must be an object of string values`},
		{`{"command":"x","exposure":"public"}`, `"exposure" "public" is not one of`},
		{`{"command":"x","toolPrefix":"fs/"}`, `"toolPrefix" "fs/" is invalid`},
		{`{"command":"x","sandbox":"off"}`, `"sandbox" must be "none" or {"network": true|false, "writable": ["/abs/dir", ...]}, not "off"`},
		{`{"command":"x","sandbox":{"netwrok":true}}`, `"sandbox": unknown key "netwrok" (did you mean "network"?); the keys are network, writable`},
		{`{"command":"x","sandbox":{"writable":["rel/dir"]}}`, `sandbox.writable[0] "rel/dir" is not absolute`},
		{`{"command":"x","sandbox":{"network":"yes"}}`, `"sandbox" must be`},
		{`{"url":"https://mcp.example.com"}`, "remote MCP server"},
		{`{"type":"sse","command":"x"}`, `remote MCP server (type "sse"`},
		{`{"transportType":"sse","command":"x"}`, `remote MCP server (type "sse"`},
		{`{"command":"x","transportType":"stdio","type":"http"}`, `remote MCP server (type "http"`},
		{`{"serverUrl":"https://mcp.example.com/sse"}`, "remote MCP server"},
		{`{"httpUrl":"https://mcp.example.com/mcp"}`, "remote MCP server"},
		{`{"command":"x","headers":{"A":"b"}}`, "remote MCP server"},
		{`{"command":"x","env":{"T":"${env:MISSING}"}}`, "env.T: ${env:MISSING}: the variable MISSING is not set"},
		{`{"command":"x","args":["${input:token}"]}`, "input placeholders need VS Code's prompt"},
		{`{"command":"x","args":["${bogus}"]}`, "unknown placeholder"},
		{`{"command":"x","env":{"A=B":"c"}}`, `env key "A=B" is not a variable name`},
		{`"npx"`, "the entry must be an object"},
		{`null`, "the entry must be an object"},
	}
	for _, c := range cases {
		s := testDecoder.Manifest("p", "/d/p.json", []byte(c.entry))
		if s.Invalid == nil || !strings.Contains(s.Invalid.Error(), c.want) || !strings.Contains(s.Invalid.Error(), `plugin "p" in /d/p.json`) {
			t.Errorf("%s: %v, want %q", c.entry, s.Invalid, c.want)
		}
	}
	if s := testDecoder.Manifest("bad/name", "/d/x.json", []byte(`{"command":"x"}`)); s.Invalid == nil || !strings.Contains(s.Invalid.Error(), `plugin name "bad/name" is invalid`) {
		t.Errorf("bad name: %v", s.Invalid)
	}
}

// FuzzConfig: any bytes decode to an error or to specs that each either
// say why they are invalid or carry a valid name and a command.
func FuzzConfig(f *testing.F) {
	for _, seed := range []string{
		`{"plugins":{"a":{"command":"x","args":["y"],"env":{"K":"V"},"sandbox":{"network":true,"writable":["/w"]}}}}`,
		`{"mcpServers":{"b":{"command":"./b","cwd":"sub","toolPrefix":"b_","exposure":"hidden","sandbox":"none"}}}`,
		`{"mcp":{"servers":{"c":{"type":"stdio","command":"${env:X}/c","args":["${workspaceFolder}","~/x"]}}}}`,
		`{"plugins":{"":{}},"servers":null}`, `{"plugins":{"a":{"command":"x"},"a":1}}`, `[]`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, err := testDecoder.Config("/f.json", data)
		if err != nil {
			if len(specs) != 0 {
				t.Fatal("specs with an error")
			}
			return
		}
		for _, s := range specs {
			if s.Invalid != nil {
				continue
			}
			if checkName(s.Name) != nil || strings.TrimSpace(s.Command) == "" || s.Source != SourceInstalled {
				t.Fatalf("a valid spec with name %q command %q source %q", s.Name, s.Command, s.Source)
			}
			if s.Exposure != "" && !s.Exposure.Valid() || !prefixPattern().MatchString(s.ToolPrefix) {
				t.Fatalf("a valid spec with exposure %q prefix %q", s.Exposure, s.ToolPrefix)
			}
			for _, w := range s.Sandbox.Writable {
				if !strings.HasPrefix(w, "/") {
					t.Fatalf("relative writable %q", w)
				}
			}
		}
	})
}

func TestExpander(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"${workspaceFolder}/a:${userHome}", "/ws/a:/home/me", ""},
		{"Bearer ${env:GH}", "Bearer ghp_123", ""},
		{"$HOME and ${ not closed", "$HOME and ${ not closed", ""},
		{"${env:NOPE}", "", "NOPE is not set"},
	}
	for _, c := range cases {
		got, err := testDecoder.Expand(c.in, "f")
		if (err != nil) != (c.err != "") || (err != nil && !strings.Contains(err.Error(), c.err)) || (err == nil && got != c.want) {
			t.Errorf("Expand(%q) = %q, %v; want %q, %q", c.in, got, err, c.want, c.err)
		}
	}
	if p, _ := testDecoder.path("~/x", "f"); p != "/home/me/x" {
		t.Errorf("~/x → %q", p)
	}
	if _, err := (Expander{}).path("~/x", "f"); err == nil {
		t.Error("~ without a home directory expanded")
	}
}
