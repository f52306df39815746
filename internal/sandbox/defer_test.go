package sandbox

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// counting counts the selection's Available calls of a backend (the first
// thing it asks of each candidate).
type counting struct {
	Backend
	calls *atomic.Int32
}

func (c counting) Available() error { c.calls.Add(1); return c.Backend.Available() }

// TestDeferProbe: with DeferProbe, Open starts no selection (serve starts
// it after the ready marker: its forks cost start-up ~1.5 ms on 2 cores);
// StartProbe starts it, and a method that needs the result starts it
// itself rather than hang.
func TestDeferProbe(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(*Sandbox)
	}{
		{"StartProbe", func(s *Sandbox) { s.StartProbe(); <-s.Selected() }},
		{"Info", func(s *Sandbox) { s.Info() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			s, err := Open(context.Background(), Options{Choice: "auto", Workspace: sandboxtest.RealTempDir(t), TempParent: sandboxtest.RealTempDir(t),
				DeferProbe: true, Backends: []Backend{counting{NewBwrap("/nonexistent/bwrap"), &calls}}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			for deadline := time.Now().Add(100 * time.Millisecond); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				if calls.Load() != 0 {
					t.Fatal("Open started the selection despite DeferProbe")
				}
			}
			select {
			case <-s.Selected():
				t.Fatal("Selected is closed before the selection started")
			default:
			}
			done := make(chan struct{})
			go func() { tc.start(s); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s did not start the deferred selection", tc.name)
			}
			if calls.Load() != 1 || s.Info().Backend != "none" {
				t.Errorf("after %s: %d probes, backend %s; want 1 and none", tc.name, calls.Load(), s.Info().Backend)
			}
		})
	}
}
