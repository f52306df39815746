package mcpserver

import (
	"io"
	"sync"
)

// frameWriter writes whole frames to the client, combining the frames that
// arrive while a write is under way into the next one. With one call at a
// time a frame is one write, as before; with many in flight, the replies
// that finish during a write no longer queue on a lock, each waking the
// next and costing a syscall: they join one buffer that the writing
// goroutine sends next, in arrival order. A frame queued behind a write
// returns before it is written, so a write error reaches the goroutine
// that was writing and every later writer (the session then ends). A client
// that stops reading holds up to maxPending bytes queued; past that,
// writers wait, as they did on the lock.
type frameWriter struct {
	out io.Writer

	mu      sync.Mutex
	drained *sync.Cond // signalled when pending is taken or the writes fail
	pending []byte     // frames queued behind the write under way
	spare   []byte     // the last written pending buffer, for reuse
	writing bool       // a goroutine is writing (and drains pending)
	err     error      // the first write error: later frames fail with it
}

// maxPending is how much may queue behind a write: a few hundred 4 KiB
// read_file replies. maxSpare is the largest drained buffer kept for the
// next burst.
const (
	maxPending = 4 << 20
	maxSpare   = 256 << 10
)

func newFrameWriter(out io.Writer) *frameWriter {
	w := &frameWriter{out: out}
	w.drained = sync.NewCond(&w.mu)
	return w
}

// write sends frame, or queues it behind the write under way.
func (w *frameWriter) write(frame []byte) error {
	w.mu.Lock()
	for w.writing && w.err == nil && len(w.pending) >= maxPending {
		w.drained.Wait()
	}
	switch {
	case w.err != nil:
		err := w.err
		w.mu.Unlock()
		return err
	case w.writing:
		w.pending = append(w.pending, frame...)
		w.mu.Unlock()
		return nil
	}
	w.writing = true
	w.mu.Unlock()
	return w.flush(frame)
}

// flush writes frame, then whatever queued meanwhile, until nothing is
// queued or a write fails (the queued frames are then dropped: the session
// is over).
func (w *frameWriter) flush(frame []byte) error {
	_, err := w.out.Write(frame)
	w.mu.Lock()
	defer w.mu.Unlock()
	for err == nil && len(w.pending) > 0 {
		next := w.pending
		w.pending, w.spare = w.spare[:0], nil // never the buffer being written
		w.drained.Broadcast()
		w.mu.Unlock()
		_, err = w.out.Write(next)
		w.mu.Lock()
		if cap(next) <= maxSpare {
			w.spare = next
		}
	}
	if err != nil && w.err == nil {
		w.err = err
	}
	w.pending = w.pending[:0]
	w.writing = false
	w.drained.Broadcast()
	return err
}
