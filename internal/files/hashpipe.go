package files

import (
	"io"
	"sync"
)

// hashPipe hashes chunks on a second goroutine while the scanner checks
// them, so reading a large file costs about the hash alone (SHA-256 is the
// slowest pass). Buffers cycle between the two; a buffer is reused only
// after the hasher has handed it back.
type hashPipe struct {
	free    chan []byte
	work    chan []byte
	done    chan struct{}
	stopped bool
}

const pipeBuffers = 4

// chunks keeps the pipe's buffers between scans: without it every scan, a
// 4 KiB read_file too, allocated and zeroed four chunks (1 MiB), which was
// most of a small read's cost.
var chunks = sync.Pool{New: func() any { return new([chunkSize]byte) }}

func startHashing(w io.Writer) *hashPipe {
	h := &hashPipe{free: make(chan []byte, pipeBuffers), work: make(chan []byte, pipeBuffers), done: make(chan struct{})}
	for range pipeBuffers {
		h.free <- chunks.Get().(*[chunkSize]byte)[:]
	}
	go func() {
		defer close(h.done)
		for b := range h.work {
			w.Write(b)
			h.free <- b[:cap(b)]
		}
	}()
	return h
}

// buffer waits for a buffer the hasher is done with.
func (h *hashPipe) buffer() []byte { return <-h.free }

// release returns an unused buffer.
func (h *hashPipe) release(b []byte) { h.free <- b }

// hash queues b; the scanner may read b (not write it) meanwhile.
func (h *hashPipe) hash(b []byte) { h.work <- b }

// stop waits until every queued chunk is hashed, then gives the buffers
// back to the pool (the scanner keeps copies, never a buffer); it may be
// called twice.
func (h *hashPipe) stop() {
	if h.stopped {
		return
	}
	h.stopped = true
	close(h.work)
	<-h.done
	for {
		select {
		case b := <-h.free:
			chunks.Put((*[chunkSize]byte)(b[:chunkSize]))
		default:
			return
		}
	}
}
