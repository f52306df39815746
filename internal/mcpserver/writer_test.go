package mcpserver

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gatedWriter records each Write; while gate is set, a Write waits for it
// to be closed.
type gatedWriter struct {
	mu      sync.Mutex
	writes  []string
	gate    chan struct{}
	started chan struct{} // receives once per Write that waits at the gate
	err     error
}

func (g *gatedWriter) Write(b []byte) (int, error) {
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		g.started <- struct{}{}
		<-gate
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return 0, g.err
	}
	g.writes = append(g.writes, string(b))
	return len(b), nil
}

// open lets the waiting Write, and every later one, through.
func (g *gatedWriter) open() {
	g.mu.Lock()
	gate := g.gate
	g.gate = nil
	g.mu.Unlock()
	close(gate)
}

func (g *gatedWriter) got() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.writes...)
}

func TestFrameWriterOneWritePerFrameWhenIdle(t *testing.T) {
	g := &gatedWriter{}
	w := newFrameWriter(g)
	for _, f := range []string{"a\n", "b\n", "c\n"} {
		if err := w.write([]byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"a\n", "b\n", "c\n"}, g.got()); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}

// TestFrameWriterCombinesFramesQueuedBehindAWrite: frames written while a
// write is under way go out in one write, whole and in order, and their
// writers do not wait for it.
func TestFrameWriterCombinesFramesQueuedBehindAWrite(t *testing.T) {
	g := &gatedWriter{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	w := newFrameWriter(g)
	done := make(chan error, 1)
	go func() { done <- w.write([]byte("first\n")) }()
	<-g.started
	for _, f := range []string{"two\n", "three\n", "four\n"} {
		if err := w.write([]byte(f)); err != nil { // returns at once: queued
			t.Fatal(err)
		}
	}
	g.open()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first\n", "two\nthree\nfour\n"}, g.got()); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}

// TestFrameWriterErrorIsSticky: after a failed write, queued frames are
// dropped and every later write fails with the error, none hanging.
func TestFrameWriterErrorIsSticky(t *testing.T) {
	broken := errors.New("broken pipe")
	g := &gatedWriter{err: broken}
	w := newFrameWriter(g)
	if err := w.write([]byte("a\n")); !errors.Is(err, broken) {
		t.Fatalf("first write: %v, want %v", err, broken)
	}
	g.mu.Lock()
	g.err = nil
	g.mu.Unlock()
	if err := w.write([]byte("b\n")); !errors.Is(err, broken) {
		t.Errorf("write after the failure: %v, want %v", err, broken)
	}
	if got := g.got(); len(got) != 0 {
		t.Errorf("frames written after the failure: %q", got)
	}
}

// TestFrameWriterBoundsTheQueue: a client that stops reading holds at most
// maxPending bytes queued; the next writer waits until the write ends.
func TestFrameWriterBoundsTheQueue(t *testing.T) {
	g := &gatedWriter{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	w := newFrameWriter(g)
	first := make(chan error, 1)
	go func() { first <- w.write([]byte("first\n")) }()
	<-g.started
	big := []byte(strings.Repeat("x", maxPending-1) + "\n")
	if err := w.write(big); err != nil { // fills the queue
		t.Fatal(err)
	}
	blocked := make(chan error, 1)
	go func() { blocked <- w.write([]byte("over\n")) }()
	select {
	case err := <-blocked:
		t.Fatalf("a write past maxPending returned at once (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	g.open()
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil { // the writing goroutine, done when the queue is empty
		t.Fatal(err)
	}
	var all bytes.Buffer
	for _, s := range g.got() {
		all.WriteString(s)
	}
	if want := "first\n" + string(big) + "over\n"; all.String() != want {
		t.Errorf("%d bytes written, want %d in order", all.Len(), len(want))
	}
}

// slowWriter collects everything written, slowly, so frames queue.
type slowWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *slowWriter) Write(b []byte) (int, error) {
	time.Sleep(50 * time.Microsecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(b)
}

// TestFrameWriterFramesArriveWholeOnce: frames from many goroutines, some
// larger than the kept spare buffer, each arrive whole and exactly once
// (a queue must never reuse the buffer a write is sending).
func TestFrameWriterFramesArriveWholeOnce(t *testing.T) {
	out := &slowWriter{}
	w := newFrameWriter(out)
	var wg sync.WaitGroup
	want := map[string]bool{}
	for g := range 8 {
		var frames []string
		for i := range 40 {
			size := 10
			if i%7 == 0 {
				size = maxSpare/4 + 1 // a few together outgrow the spare
			}
			frames = append(frames, fmt.Sprintf("%d-%d:%s\n", g, i, strings.Repeat("x", size)))
			want[frames[i]] = true
		}
		wg.Go(func() {
			for _, f := range frames {
				if err := w.write([]byte(f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	w.write([]byte("end\n")) // idle again: written once the queue is empty
	got := strings.SplitAfter(strings.TrimSuffix(out.buf.String(), "end\n"), "\n")
	got = got[:len(got)-1]
	if len(got) != len(want) {
		t.Fatalf("%d frames arrived, want %d", len(got), len(want))
	}
	for _, f := range got {
		if !want[f] {
			t.Fatalf("a frame arrived broken or twice: %.40q", f)
		}
		delete(want, f)
	}
}
