package main

import (
	"context"
	"io"
	"sync"
	"testing"
)

// A configured workspace that cannot boot ends the session with its error,
// however the boot and the session's end interleave: failure, woken when
// the boot is done, must see the error (it once looked between the two).
func TestMCPBootFailureIsSeenByTheSessionEnd(t *testing.T) {
	t.Setenv("STEERABLE_MAX_INFLIGHT", "0")
	for i := range 1000 {
		m := &mcpBoot{common: commonFlags{cwd: t.TempDir(), logLevel: "error", logFormat: "json"},
			strict: true, stderr: io.Discard, stop: func() {}, booting: true}
		m.idle = sync.NewCond(&m.mu)
		go m.opener(false)(context.Background(), "")
		if err := m.failure(); err == nil {
			t.Fatalf("run %d: the session ended without the boot's error", i)
		}
	}
}
