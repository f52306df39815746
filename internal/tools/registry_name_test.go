package tools

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzValidName: validName accepts exactly what the tool-name pattern does.
func FuzzValidName(f *testing.F) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)
	for _, s := range []string{"read_file", "mcp__github__create_issue", "a.b:c-d", "", "has space", "ünï", strings.Repeat("x", 128), strings.Repeat("x", 129), "x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := validName(name), pattern.MatchString(name); got != want {
			t.Fatalf("validName(%q) = %v, the pattern says %v", name, got, want)
		}
	})
}
