package main

import (
	"io"
	"testing"

	"steerable.dev/sidecar/internal/tools"
)

// TestBuiltinSchemasCompile: built-in schemas are compiled lazily (not at
// boot), so this is where a broken one is caught.
func TestBuiltinSchemasCompile(t *testing.T) {
	t.Setenv("STEERABLE_SANDBOX", "none")
	a, err := boot(commonFlags{cwd: t.TempDir(), logLevel: "error", logFormat: "json"}, true, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if err := a.buildTools(tools.NoHost{}); err != nil {
		t.Fatal(err)
	}
	descs := a.registry.Descriptors()
	if len(descs) == 0 {
		t.Fatal("no built-in tools registered")
	}
	for _, d := range descs {
		e, _ := a.registry.Lookup(d.Name)
		if _, err := e.Schema(); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
}
