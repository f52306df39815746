package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/config"
)

// TestREADMEListsEveryVariable keeps the README's configuration table in
// step with the Config struct tags: every variable appears in one row with
// its default and allowed values. On failure it prints the expected rows.
func TestREADMEListsEveryVariable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
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
		t.Errorf("README.md lacks these configuration rows (or they differ):\n%s", strings.Join(missing, "\n"))
	}
}

func readmeRow(v config.Var) string {
	def := v.Default
	if def == "" {
		def = "unset"
	}
	return fmt.Sprintf("| `%s` | %s | %s | %s |", v.Name, def, v.Allowed(), v.Help)
}
