package logsink

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// A record comes out at the level the mapping gives, tagged and with its
// attributes (the logger's too); one mapped to Disabled, or below the
// logger's level, does not come out.
func TestSlogMapsLevelsAndAttributes(t *testing.T) {
	var out bytes.Buffer
	levels := func(l slog.Level) zerolog.Level {
		switch {
		case l >= slog.LevelWarn:
			return zerolog.WarnLevel
		case l >= slog.LevelInfo:
			return zerolog.InfoLevel
		}
		return zerolog.Disabled
	}
	log := Slog(zerolog.New(&out).Level(zerolog.InfoLevel), "lib", levels).With("conn", 7)
	log.Debug("dropped by the mapping")
	log.Info("connected", "id", "a1")
	log.Error("broken")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		`{"level":"info","component":"lib","conn":"7","id":"a1","message":"connected"}`,
		`{"level":"warn","component":"lib","conn":"7","message":"broken"}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), strings.Join(want, "\n"))
	}
	out.Reset()
	Slog(zerolog.New(&out).Level(zerolog.ErrorLevel), "lib", levels).Warn("below the logger's level")
	if out.Len() != 0 {
		t.Fatalf("a record below the logger's level came out: %s", out.String())
	}
}
