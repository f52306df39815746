package logsink

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// gate is a stderr whose reader can be stopped: while closed, Write blocks
// the way write(2) does on a full pipe nobody reads.
type gate struct {
	mu     sync.Mutex
	open   chan struct{}
	buf    bytes.Buffer
	writes int
}

func newGate(open bool) *gate {
	g := &gate{open: make(chan struct{})}
	if open {
		close(g.open)
	}
	return g
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes++
	return g.buf.Write(p)
}

func (g *gate) release() { close(g.open) }

func (g *gate) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.String()
}

func closeOK(t *testing.T, s *Sink) {
	t.Helper()
	if !s.Close(5 * time.Second) {
		t.Fatal("Close did not flush within 5s")
	}
}

func TestLinesArriveInOrder(t *testing.T) {
	g := newGate(true)
	s := New(g, 0, nil)
	var want strings.Builder
	for i := range 1000 {
		line := fmt.Sprintf(`{"n":%d}`+"\n", i)
		want.WriteString(line)
		s.Write([]byte(line))
	}
	closeOK(t, s)
	if diff := cmp.Diff(want.String(), g.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if s.Dropped() != 0 {
		t.Errorf("Dropped = %d with a reader", s.Dropped())
	}
}

// TestStuckStderrNeverBlocksWriters is the regression test of the hang: a
// stderr nobody reads must cost writers nothing, the loss is counted, and
// the first line through once the host reads again says how many it lost.
func TestStuckStderrNeverBlocksWriters(t *testing.T) {
	g := newGate(false)
	s := New(g, 4096, nil)
	line := []byte(`{"level":"debug","message":"` + strings.Repeat("x", 100) + `"}` + "\n")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 10000 {
			s.Write(line)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write blocked on a stderr nobody reads")
	}
	dropped := s.Dropped()
	if dropped == 0 || dropped >= 10000 {
		t.Fatalf("Dropped = %d, want some but not all of 10000", dropped)
	}
	s.Announce([]byte("__SIDECAR_READY__:{}\n")) // never dropped, even now
	g.release()
	waitIdle(t, s)
	s.Write([]byte(`{"level":"info","message":"after"}` + "\n"))
	closeOK(t, s)
	out := g.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if written := uint64(len(lines) - 2); written+dropped != 10000 {
		t.Errorf("%d flood lines written + %d dropped, want 10000", written, dropped)
	}
	if !strings.Contains(out, "__SIDECAR_READY__:{}\n") {
		t.Error("the announcement was dropped")
	}
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last["message"] != "after" || last[DroppedField] != float64(dropped) {
		t.Errorf("first line after the loss = %v, want message after and %s %d", last, DroppedField, dropped)
	}
	if strings.Count(out, DroppedField) != 1 {
		t.Errorf("the loss is reported %d times, want once", strings.Count(out, DroppedField))
	}
}

// waitIdle waits until everything queued has been written.
func waitIdle(t *testing.T, s *Sink) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		held := s.held
		s.mu.Unlock()
		if held == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still queued after 5s", held)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCloseGivesUpOnAStuckStderr(t *testing.T) {
	g := newGate(false)
	s := New(g, 0, nil)
	s.Write([]byte("{}\n"))
	t0 := time.Now()
	if s.Close(100 * time.Millisecond) {
		t.Error("Close reported a flush to a stderr nobody reads")
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("Close took %v", d)
	}
	s.Write([]byte(`{"late":true}` + "\n")) // after Close: dropped, no panic
	g.release()
	<-s.done
	if strings.Contains(g.String(), "late") {
		t.Error("a line written after Close reached stderr")
	}
}

func TestConsoleFormatShowsTheDropCount(t *testing.T) {
	g := newGate(false)
	console := func(w io.Writer) io.Writer {
		return zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: "15:04:05.000"}
	}
	s := New(g, 64, console)
	log := zerolog.New(s)
	for range 10 {
		log.Info().Msg("filler filler filler")
	}
	g.release()
	waitIdle(t, s)
	log.Warn().Msg("after")
	closeOK(t, s)
	if !strings.Contains(g.String(), fmt.Sprintf("after %s=%d", DroppedField, s.Dropped())) {
		t.Errorf("console output lacks the drop count %d:\n%s", s.Dropped(), g.String())
	}
}

func TestConcurrentWriters(t *testing.T) {
	g := newGate(true)
	s := New(g, 1<<16, nil)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				fmt.Fprintf(s, `{"w":%d,"i":%d}`+"\n", w, i)
			}
		}()
	}
	wg.Wait()
	closeOK(t, s)
	lines := strings.Split(strings.TrimSuffix(g.String(), "\n"), "\n")
	if uint64(len(lines))+s.Dropped() < 4000 {
		t.Errorf("%d lines + %d dropped < 4000 written", len(lines), s.Dropped())
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("torn line %q", l)
		}
	}
}

func TestAnnotate(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"a":1}` + "\n", `{"a":1,"droppedLogLines":3}` + "\n"},
		{`{}` + "\n", `{"droppedLogLines":3}` + "\n"},
		{`{"a":1}`, `{"a":1,"droppedLogLines":3}` + "\n"},
		{"plain\n", `{"level":"warn","droppedLogLines":3,"message":"log lines dropped: stderr is not being read"}` + "\nplain\n"},
	} {
		if got := string(annotate(nil, []byte(tc.line), 3)); got != tc.want {
			t.Errorf("annotate(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// BenchmarkWrite is the cost a logging goroutine pays per line.
func BenchmarkWrite(b *testing.B) {
	s := New(io.Discard, 0, nil)
	line := []byte(`{"level":"info","tool":"read_file","mode":"read","callId":"c1","durationMs":0,"success":true,"message":"tool call"}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		s.Write(line)
	}
	s.Close(time.Second)
}
