package wire

import (
	"context"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
)

// Writer writes frames to a byte stream, group-committed and bounded.
//
// A frame is appended to pending, and whoever writes takes everything
// pending in one write(2): under load many small frames become few writes;
// idle, a frame is one write with no added latency. At most one goroutine
// writes at a time. Send may write itself when nobody is (a reply's worker
// may block in write(2): it has nothing else to do); SendCtx never does —
// it leaves the write to a flusher goroutine, so a reverse call waits only
// as long as its context even when the host has stopped reading.
//
// Pending frames, plus the batch being written, are at most max bytes (a
// frame larger than max waits until nothing is queued, then goes alone).
// Beyond it Send waits as long as it takes (a reply is never dropped),
// SendCtx as long as its context, TrySend not at all: it drops the frame
// and counts it.
type Writer struct {
	out     io.Writer
	framing string
	max     int

	mu       sync.Mutex
	pending  []byte
	spare    []byte
	frames   int           // frames in pending
	writing  int           // bytes of the batch being written
	flushing bool          // a goroutine is writing; it drains pending before it stops
	room     chan struct{} // closed (and replaced) when bytes leave the queue or writing fails, if anyone waits
	waiters  int           // goroutines waiting on room
	err      error

	dropped atomic.Uint64
	onError func(error)
}

// maxSpare is the largest drained buffer kept for the next burst.
const maxSpare = 256 << 10

// NewWriter writes framing frames to out, queuing at most max bytes.
// onError, if set, is called once, on its own goroutine, with the first
// write error; every later Send fails with it.
func NewWriter(out io.Writer, framing string, max int, onError func(error)) *Writer {
	return &Writer{out: out, framing: framing, max: max, room: make(chan struct{}), onError: onError}
}

// Send queues frame, waiting for room as long as it takes, and writes the
// queue itself when no other goroutine is writing (it returns once its
// frame is written, or left to the writer at work).
func (w *Writer) Send(frame []byte) error {
	w.mu.Lock()
	if err := w.waitRoom(nil, len(frame)); err != nil {
		w.mu.Unlock()
		return err
	}
	w.add(frame)
	if !w.flushing {
		w.flush()
	}
	w.mu.Unlock()
	return nil
}

// SendCtx queues frame, waiting for room only as long as ctx, and never
// writes itself: a flusher goroutine does.
func (w *Writer) SendCtx(ctx context.Context, frame []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.waitRoom(ctx.Done(), len(frame)); err != nil {
		if err == errCtx {
			return ctx.Err()
		}
		return err
	}
	w.add(frame)
	w.kick()
	return nil
}

// TrySend queues frame if there is room now, else drops it and counts it
// (Dropped). It never waits: for progress notifications, which a later one
// supersedes.
func (w *Writer) TrySend(frame []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || !w.fits(len(frame)) {
		w.dropped.Add(1)
		return false
	}
	w.add(frame)
	w.kick()
	return true
}

// flushAt is how much Queue lets pending grow before it writes.
const flushAt = 64 << 10

// Queue queues frame without writing it unless flushAt bytes are pending:
// a read loop queues the answers of a batch of frames it read together and
// calls Flush before it reads again. It waits for room as long as it takes
// (the read loop stops reading, which pushes back on the host).
func (w *Writer) Queue(frame []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.waitRoom(nil, len(frame)); err != nil {
		return err
	}
	w.add(frame)
	if len(w.pending) >= flushAt && !w.flushing {
		w.flush()
	}
	return nil
}

// Flush writes what is queued unless a goroutine is at it already (it
// writes until nothing is pending).
func (w *Writer) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) > 0 && !w.flushing && w.err == nil {
		w.flush()
	}
}

// Drain waits until every queued frame is written, writing failed or ctx
// ends.
func (w *Writer) Drain(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.err == nil && (len(w.pending) > 0 || w.writing > 0) {
		w.kick()
		room := w.room
		w.waiters++
		w.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			w.mu.Lock()
			w.waiters--
			return ctx.Err()
		}
		w.mu.Lock()
		w.waiters--
	}
	return w.err
}

// Stats is the queue's state for system.ping.
type Stats struct {
	QueuedBytes  int    // frames queued or being written
	QueuedFrames int    // frames queued behind the write under way
	Dropped      uint64 // frames TrySend dropped
}

// Stats reports the queue.
func (w *Writer) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Stats{QueuedBytes: len(w.pending) + w.writing, QueuedFrames: w.frames, Dropped: w.dropped.Load()}
}

// errCtx marks a wait for room that its context ended.
var errCtx = &ctxError{}

type ctxError struct{}

func (*ctxError) Error() string { return "context done" }

// fits: a frame of n bytes may be queued now. Called with mu held.
func (w *Writer) fits(n int) bool {
	queued := len(w.pending) + w.writing
	return queued == 0 || queued+n <= w.max
}

// waitRoom waits, with mu held, until a frame of n bytes fits, writing
// fails (its error) or done is closed (errCtx; nil done never is).
func (w *Writer) waitRoom(done <-chan struct{}, n int) error {
	for w.err == nil && !w.fits(n) {
		w.kick() // what is pending must be on its way out
		room := w.room
		w.waiters++
		w.mu.Unlock()
		select {
		case <-room:
		case <-done:
			w.mu.Lock()
			w.waiters--
			return errCtx
		}
		w.mu.Lock()
		w.waiters--
	}
	return w.err
}

// add appends a frame to pending. Called with mu held.
func (w *Writer) add(b []byte) {
	if w.framing == FramingContentLength {
		w.pending = append(w.pending, "Content-Length: "...)
		w.pending = strconv.AppendInt(w.pending, int64(len(b)), 10)
		w.pending = append(w.pending, "\r\n\r\n"...)
		w.pending = append(w.pending, b...)
	} else {
		w.pending = append(w.pending, b...)
		w.pending = append(w.pending, '\n')
	}
	w.frames++
}

// kick starts a flusher goroutine unless one is writing. Called with mu
// held.
func (w *Writer) kick() {
	if w.flushing || len(w.pending) == 0 || w.err != nil {
		return
	}
	w.flushing = true
	go func() {
		w.mu.Lock()
		w.flushing = false // flush sets it again
		w.flush()
		w.mu.Unlock()
	}()
}

// flush writes pending batches until none is left; called with mu held, it
// releases the lock around each write.
func (w *Writer) flush() {
	w.flushing = true
	for len(w.pending) > 0 && w.err == nil {
		batch := w.pending
		w.pending, w.spare = w.spare[:0], nil
		w.writing, w.frames = len(batch), 0
		w.mu.Unlock()
		_, err := w.out.Write(batch)
		w.mu.Lock()
		w.writing = 0
		if cap(batch) <= maxSpare {
			w.spare = batch[:0]
		}
		if err != nil {
			w.err = err
			w.pending = nil
			if w.onError != nil {
				go w.onError(err)
			}
		}
		if w.waiters > 0 {
			close(w.room)
			w.room = make(chan struct{})
		}
	}
	w.flushing = false
}
