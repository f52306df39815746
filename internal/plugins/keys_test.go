package plugins

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnknownKeyNamesTheNearest: a key the sidecar does not know fails the
// plugin, naming the key and the nearest known one, in a config file's
// entry and in a directory's manifest alike.
func TestUnknownKeyNamesTheNearest(t *testing.T) {
	cases := []struct{ entry, want string }{
		{`{"comand":"x"}`, `unknown key "comand" (did you mean "command"?); the keys are command, args, env, cwd, toolPrefix, exposure, sandbox, disabled, type, transportType`},
		{`{"command":"x","arg":["-v"]}`, `unknown key "arg" (did you mean "args"?)`},
		{`{"command":"x","Env":{"A":"b"}}`, `unknown key "Env" (did you mean "env"?)`},
		{`{"command":"x","tool_prefix":"fs__"}`, `unknown key "tool_prefix" (did you mean "toolPrefix"?)`},
		{`{"command":"x","sandobx":"none"}`, `unknown key "sandobx" (did you mean "sandbox"?)`},
		{`{"command":"x","autoAprove":[]}`, `unknown key "autoAprove" (did you mean "autoApprove"?)`},
		{`{"command":"x","zzzzzzzz":1}`, `unknown key "zzzzzzzz"; the keys are`},
		{`{"command":"x","exposre":"direct","wat":1}`, `unknown keys "exposre" (did you mean "exposure"?), "wat"; the keys are`},
	}
	for _, c := range cases {
		s := testDecoder.Manifest("p", "/d/p.json", []byte(c.entry))
		if s.Invalid == nil || !strings.Contains(s.Invalid.Error(), c.want) || !strings.Contains(s.Invalid.Error(), `plugin "p" in /d/p.json`) {
			t.Errorf("manifest %s: %v, want %q", c.entry, s.Invalid, c.want)
		}
		specs, err := testDecoder.Config("/c.json", []byte(`{"mcpServers":{"p":`+c.entry+`}}`))
		if err != nil || len(specs) != 1 || specs[0].Invalid == nil || !strings.Contains(specs[0].Invalid.Error(), c.want) {
			t.Errorf("config entry %s: %v %+v, want %q", c.entry, err, specs, c.want)
		}
	}
}

// TestOtherClientsKeys: the keys other MCP clients write are read,
// ignored (and listed for the log) or refused with the reason, never
// taken for typos.
func TestOtherClientsKeys(t *testing.T) {
	ok := []struct {
		entry   string
		ignored []string
	}{
		{`{"command":"x","type":"stdio"}`, nil},
		{`{"command":"x","transportType":"stdio","disabled":false,"autoApprove":["read"],"timeout":60}`, []string{"autoApprove", "timeout"}},
		{`{"command":"x","alwaysAllow":["a"]}`, []string{"alwaysAllow"}},
		{`{"command":"x","trust":true,"description":"my server","timeout":30000}`, []string{"description", "timeout", "trust"}},
	}
	for _, c := range ok {
		s := testDecoder.Manifest("p", "/d/p.json", []byte(c.entry))
		if s.Invalid != nil {
			t.Errorf("%s: %v", c.entry, s.Invalid)
		}
		if diff := cmp.Diff(c.ignored, s.Warnings); diff != "" {
			t.Errorf("%s: ignored keys (-want +got):\n%s", c.entry, diff)
		}
	}
	refused := []struct{ entry, want string }{
		{`{"command":"x","envFile":"${workspaceFolder}/.env"}`, `"envFile" is not read; put its variables in "env"`},
		{`{"command":"x","disabledTools":["delete"]}`, `"disabledTools" is not supported`},
		{`{"command":"x","includeTools":["read"]}`, `"includeTools" is not supported`},
		{`{"command":"x","excludeTools":["rm"]}`, `"excludeTools" is not supported`},
	}
	for _, c := range refused {
		s := testDecoder.Manifest("p", "/d/p.json", []byte(c.entry))
		if s.Invalid == nil || !strings.Contains(s.Invalid.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.entry, s.Invalid, c.want)
		}
	}
}
