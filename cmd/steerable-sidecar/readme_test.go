package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// TestREADMEListsEveryVariable keeps the configuration reference the README
// links (docs/configuration.md) in step with the Config struct tags: every
// variable appears in one row with its default and allowed values. On
// failure it prints the expected rows.
func TestREADMEListsEveryVariable(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	var missing []string
	for _, v := range config.Vars() {
		if row := readmeRow(v); !strings.Contains(readme, row) {
			missing = append(missing, row)
		}
	}
	if len(missing) > 0 {
		t.Errorf("docs/configuration.md lacks these configuration rows (or they differ):\n%s", strings.Join(missing, "\n"))
	}
}

func readmeRow(v config.Var) string {
	def := v.Default
	if def == "" {
		def = "unset"
	}
	return fmt.Sprintf("| `%s` | %s | %s | %s |", v.Name, def, v.Allowed(), v.Meaning())
}

// TestREADMEExamplesMatchTheBinary: the protocol walk-through (in
// docs/protocol.md, which the README links) shows what this build answers
// with the default configuration — the number of tools in system.ping and
// the suggestions for a misspelt tool — so a newcomer who pastes the lines
// sees the same.
func TestREADMEExamplesMatchTheBinary(t *testing.T) {
	b, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, v := range config.Vars() {
		t.Setenv(v.Name, "") // restored when the test ends
		os.Unsetenv(v.Name)  // the defaults, whatever this shell has set
	}
	// The lsp tool joins only where a language server is installed; the
	// walk-through counts the tools every machine has.
	t.Setenv("STEERABLE_LSP_DEFAULTS", "0")
	a := bootForTest(t, false)
	ping := regexp.MustCompile(`← \{"jsonrpc":"2.0","id":1,"result":\{"status":"ok","loadedTools":(\d+)`).FindStringSubmatch(readme)
	if ping == nil {
		t.Fatal("docs/protocol.md has no system.ping reply with loadedTools")
	}
	if want := strconv.Itoa(a.registry.Len()); ping[1] != want {
		t.Errorf("docs/protocol.md's system.ping shows loadedTools %s; this build registers %s", ping[1], want)
	}
	sugg := regexp.MustCompile(`"suggestions":(\[[^\]]*\]),"unknownTool":"raed_file"`).FindStringSubmatch(readme)
	if sugg == nil || sugg[1] == "" {
		t.Fatal(`docs/protocol.md has no raed_file reply with "suggestions":[…],"unknownTool":"raed_file"`)
	}
	res := a.dispatcher.Dispatch(context.Background(), tools.Invocation{ToolCall: protocol.ToolCall{Name: "raed_file", Arguments: json.RawMessage(`{}`)}})
	got, _ := json.Marshal(res.Data["suggestions"])
	if string(got) != sugg[1] {
		t.Errorf("docs/protocol.md's raed_file reply suggests %s; this build suggests %s", sugg[1], got)
	}
}

// TestHelpDescribesRunCodeAsBuilt: --help must not promise that
// STEERABLE_RUN_CODE registers run_code while this build has none.
func TestHelpDescribesRunCodeAsBuilt(t *testing.T) {
	t.Setenv("STEERABLE_RUN_CODE", "1")
	a := bootForTest(t, false)
	_, registered := a.registry.Lookup("run_code")
	for _, v := range config.Vars() {
		if v.Name == "STEERABLE_RUN_CODE" && !registered && strings.HasPrefix(v.Help, "register") {
			t.Errorf("--help says %q, but STEERABLE_RUN_CODE=1 registers no run_code in this build", v.Help)
		}
	}
}
