package plugins

import (
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// A server's MCP log messages reach the queue from the SDK's goroutines,
// also after its stderr ended: that must neither panic (a send on a closed
// channel) nor block, and what the writer saw is logged.
func TestStderrLogAcceptsLinesAfterEOF(t *testing.T) {
	log := &syncBuffer{}
	s := drainStderr(strings.NewReader("first line\n"), zerolog.New(log))
	s.Wait(5 * time.Second)
	for range stderrQueue + 10 {
		s.queue("[info] late")
	}
	if !strings.Contains(log.String(), "first line") {
		t.Errorf("the stderr line was not logged: %s", log.String())
	}
	if s.Tail() != "first line" {
		t.Errorf("tail %q", s.Tail())
	}
}
