package files

import "io"

// hashPipe hashes chunks on a second goroutine while the scanner checks
// them, so reading a large file costs about the hash alone (SHA-256 is the
// slowest pass). Buffers, taken from the chunk pool, cycle between the two;
// a buffer is reused only after the hasher has handed it back. Small files
// do not come here (ScanText's SizeHint): for them the goroutine and the
// buffers cost more than the overlap saves.
type hashPipe struct {
	free    chan []byte
	work    chan []byte
	done    chan struct{}
	stopped bool
}

const pipeBuffers = 4

func startHashing(w io.Writer) *hashPipe {
	h := &hashPipe{free: make(chan []byte, pipeBuffers), work: make(chan []byte, pipeBuffers), done: make(chan struct{})}
	for range pipeBuffers {
		h.free <- getChunk()
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

// stop waits until every queued chunk is hashed and gives the buffers back
// to the pool; it may be called twice. The scanner holds no buffer then:
// each one it took went back through hash or release.
func (h *hashPipe) stop() {
	if h.stopped {
		return
	}
	h.stopped = true
	close(h.work)
	<-h.done
	for range pipeBuffers {
		putChunk(<-h.free)
	}
}
