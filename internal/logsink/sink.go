package logsink

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultLimit is how many bytes of log lines may wait for stderr before new
// lines are dropped: thousands of lines, so a host that reads stderr slowly
// loses nothing, and little enough memory that one that never reads it
// costs the sidecar nothing worth measuring.
const DefaultLimit = 1 << 20

// DroppedField is the member added to the first line that gets through
// after lines were dropped: how many were dropped just before it.
const DroppedField = "droppedLogLines"

// Sink is a bounded, non-blocking writer in front of stderr; see the package
// doc. It is safe for concurrent use.
type Sink struct {
	out    io.Writer
	format func(io.Writer) io.Writer // nil: lines are written as they come
	limit  int

	mu         sync.Mutex
	wake       *sync.Cond
	waiting    bool    // the drainer is parked in wake.Wait
	pending    []byte  // queued line bytes, back to back
	entries    []entry // the queued lines, in order, as spans of pending
	held       int     // bytes queued or being written
	unreported uint64  // lines dropped since the last line accepted
	closed     bool

	dropped atomic.Uint64
	done    chan struct{} // closed when the drainer has returned
}

// entry is one queued line.
type entry struct {
	start, end int
	dropped    uint64 // lines dropped just before this one
	raw        bool   // an announcement: neither formatted nor annotated
}

// New starts a sink writing to out, holding at most limit bytes (at least
// one line's worth; DefaultLimit when limit <= 0). format, when not nil,
// wraps the drainer's output buffer into a writer that formats each JSON
// line (zerolog's ConsoleWriter).
func New(out io.Writer, limit int, format func(io.Writer) io.Writer) *Sink {
	if limit <= 0 {
		limit = DefaultLimit
	}
	s := &Sink{out: out, format: format, limit: limit, done: make(chan struct{})}
	s.wake = sync.NewCond(&s.mu)
	go s.drain()
	return s
}

// Write queues one log line (zerolog writes one event per call) and returns
// at once. A line that does not fit in the bound is dropped and counted.
// It never fails: losing a log line is not an error of the caller's.
func (s *Sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.held+len(p) > s.limit {
		s.unreported++
		s.dropped.Add(1)
		return len(p), nil
	}
	s.enqueue(p, false)
	return len(p), nil
}

// Announce queues a line that must reach the host, whatever the bound: the
// ready marker. It is written exactly as given, after the lines queued
// before it; like Write, it never blocks.
func (s *Sink) Announce(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.enqueue(p, true)
	}
}

// enqueue appends a line; called with mu held.
func (s *Sink) enqueue(p []byte, raw bool) {
	e := entry{start: len(s.pending), raw: raw}
	s.pending = append(s.pending, p...)
	e.end = len(s.pending)
	if !raw {
		e.dropped, s.unreported = s.unreported, 0
	}
	s.entries = append(s.entries, e)
	s.held += len(p)
	if s.waiting {
		s.wake.Signal()
	}
}

// Dropped is how many lines were dropped since the sink started.
func (s *Sink) Dropped() uint64 { return s.dropped.Load() }

// Close stops accepting lines and waits at most timeout for the queued ones
// to be written. It reports whether everything was; on false the drainer is
// left blocked in a write to a stderr nobody reads, which exiting ends.
func (s *Sink) Close(timeout time.Duration) bool {
	s.mu.Lock()
	s.closed = true
	s.wake.Signal()
	s.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}

// drain writes queued lines until the sink is closed and empty. Lines queued
// meanwhile are written together: one write(2) per batch.
func (s *Sink) drain() {
	defer close(s.done)
	var b batch
	var out bytes.Buffer
	w := io.Writer(&out)
	if s.format != nil {
		w = s.format(&out)
	}
	for {
		if !s.next(&b) {
			return
		}
		out.Reset()
		for _, e := range b.entries {
			b.render(w, &out, e)
		}
		_, _ = s.out.Write(out.Bytes()) // may block: that is the drainer's job
		s.mu.Lock()
		s.held -= len(b.pending)
		s.mu.Unlock()
	}
}

// batch is what the drainer took from the queue. Its buffers are swapped
// with the queue's, so a steady stream of lines allocates nothing.
type batch struct {
	pending []byte
	entries []entry
	line    []byte // scratch for annotated lines
}

// next waits for queued lines and swaps them into b; false once the sink is
// closed and nothing is left.
func (s *Sink) next(b *batch) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.entries) == 0 {
		if s.closed {
			return false
		}
		s.waiting = true
		s.wake.Wait()
		s.waiting = false
	}
	b.pending, s.pending = s.pending, b.pending[:0]
	b.entries, s.entries = s.entries, b.entries[:0]
	return true
}

// render writes one entry: announcements to the raw buffer as they are, log
// lines through the formatter, with the drop count added when there is one.
func (b *batch) render(w io.Writer, raw *bytes.Buffer, e entry) {
	line := b.pending[e.start:e.end]
	if e.raw {
		raw.Write(line)
		return
	}
	if e.dropped > 0 {
		b.line = annotate(b.line[:0], line, e.dropped)
		line = b.line
	}
	_, _ = w.Write(line)
}

// annotate appends line to dst with `"droppedLogLines":n` added as its last
// member. A line that is not a JSON object gets a JSON line of its own
// before it instead.
func annotate(dst, line []byte, n uint64) []byte {
	body := bytes.TrimRight(line, "\r\n")
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		dst = append(dst, `{"level":"warn","`+DroppedField+`":`...)
		dst = strconv.AppendUint(dst, n, 10)
		dst = append(dst, `,"message":"log lines dropped: stderr is not being read"}`+"\n"...)
		return append(dst, line...)
	}
	dst = append(dst, body[:len(body)-1]...)
	if len(body) > 2 {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, DroppedField...)
	dst = append(dst, `":`...)
	dst = strconv.AppendUint(dst, n, 10)
	return append(dst, "}\n"...)
}
