package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// stalledOut is a stdout the host does not read: writes block until
// release, then succeed.
type stalledOut struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func newStalled() *stalledOut { return &stalledOut{release: make(chan struct{})} }

func (s *stalledOut) Write(p []byte) (int, error) {
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *stalledOut) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func frame(n int) []byte { return []byte(`{"x":"` + strings.Repeat("a", n-8) + `"}`) }

// fill queues frames through SendCtx until the queue is at its bound (a
// frame's newline included) and returns how many.
func fill(t *testing.T, w *Writer, size int) int {
	t.Helper()
	n := 0
	for w.Stats().QueuedBytes+size+1 <= w.max {
		if err := w.SendCtx(context.Background(), frame(size)); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func TestWriterBoundsAStalledStdout(t *testing.T) {
	out := newStalled()
	w := NewWriter(out, FramingNewline, 4096, nil)
	queued := fill(t, w, 1000)
	if st := w.Stats(); st.QueuedBytes > 4096 {
		t.Fatalf("queued %d bytes over the 4096 bound", st.QueuedBytes)
	}

	// A reverse call waits only as long as its context.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- w.SendCtx(ctx, frame(1000)) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("SendCtx on a full queue = %v, want context.Canceled", err)
	}

	// Progress is dropped and counted, never waited for.
	if w.TrySend(frame(1000)) {
		t.Fatal("TrySend queued past the bound")
	}
	if st := w.Stats(); st.Dropped != 1 {
		t.Fatalf("dropped = %d", st.Dropped)
	}

	// A reply waits, and is written once the host reads again.
	sent := make(chan error, 1)
	reply := `{"reply":"` + strings.Repeat("r", 200) + `"}`
	go func() { sent <- w.Send([]byte(reply)) }()
	select {
	case err := <-sent:
		t.Fatalf("Send returned %v with the queue full", err)
	case <-time.After(20 * time.Millisecond): // only shows it did not return early
	}
	close(out.release)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if err := w.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != queued+1 || lines[len(lines)-1] != reply {
		t.Errorf("wrote %d frames, want %d ending with the reply", len(lines), queued+1)
	}
	if st := w.Stats(); st.QueuedBytes != 0 {
		t.Errorf("queue not empty after Drain: %+v", st)
	}
}

func TestWriterFrameLargerThanTheBoundGoesAlone(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, FramingContentLength, 64, nil)
	if err := w.Send(frame(500)); err != nil {
		t.Fatal(err)
	}
	w.Queue([]byte(`{}`))
	w.Flush()
	if want := "Content-Length: 500\r\n\r\n" + string(frame(500)) + "Content-Length: 2\r\n\r\n{}"; out.String() != want {
		t.Errorf("wrote %q", out.String())
	}
}

type failingOut struct{}

func (failingOut) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWriterReportsTheFirstWriteErrorOnce(t *testing.T) {
	got := make(chan error, 2)
	w := NewWriter(failingOut{}, FramingNewline, 1024, func(err error) { got <- err })
	w.Send([]byte(`{}`))
	if err := <-got; !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("onError(%v)", err)
	}
	if err := w.Send([]byte(`{}`)); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Send after a failed write = %v", err)
	}
	if err := w.SendCtx(context.Background(), []byte(`{}`)); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("SendCtx after a failed write = %v", err)
	}
	select {
	case err := <-got:
		t.Errorf("onError called twice (%v)", err)
	default:
	}
}

func TestWriterGroupCommitsConcurrentSenders(t *testing.T) {
	out := newStalled()
	w := NewWriter(out, FramingNewline, 1<<20, nil)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); w.SendCtx(context.Background(), []byte(`{"a":1}`)) }()
	}
	wg.Wait()
	close(out.release)
	if err := w.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 50 {
		t.Errorf("%d frames written, want 50", n)
	}
}
