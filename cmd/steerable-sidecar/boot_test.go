package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
)

// bootForTest boots the CLI posture's app on a fresh workspace with the
// environment as the test set it (the sandbox off: its probe changes no
// tool), tools built; it is closed when the test ends.
func bootForTest(t *testing.T, strict bool) *app {
	t.Helper()
	t.Setenv("STEERABLE_SANDBOX", "none")
	a, err := boot(commonFlags{cwd: t.TempDir(), logLevel: "error", logFormat: "json"}, strict, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	if err := a.buildTools(tools.NoHost{}); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestBuiltinSchemasCompile: built-in schemas are compiled lazily (not at
// boot), so this is where a broken one is caught.
func TestBuiltinSchemasCompile(t *testing.T) {
	a := bootForTest(t, true)
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

// TestLogTimestampsHaveMilliseconds: both formats carry the time to the
// millisecond (the console one is parsed from the JSON one, so a JSON time
// in seconds would print .000 for every line).
func TestLogTimestampsHaveMilliseconds(t *testing.T) {
	defer func(f func() time.Time) { zerolog.TimestampFunc = f }(zerolog.TimestampFunc)
	zerolog.TimestampFunc = func() time.Time { return time.Date(2026, 1, 2, 12, 34, 56, 789_000_000, time.Local) }
	for format, want := range map[string]string{"json": `"time":"2026-01-02T12:34:56.789`, "console": "12:34:56.789 "} {
		var out strings.Builder
		log, sink, err := newLogger(&out, "info", format)
		if err != nil {
			t.Fatal(err)
		}
		log.Info().Msg("hello")
		sink.Close(5 * time.Second)
		if !strings.Contains(out.String(), want) {
			t.Errorf("%s line %q lacks %q", format, out.String(), want)
		}
	}
}
