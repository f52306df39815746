package rpc

import (
	"context"
	"time"

	"steerable.dev/sidecar/internal/wire"
	"steerable.dev/sidecar/protocol"
)

// Backpressure (SPEC §1 "Concurrency"). A host may pipeline as
// many requests as it likes; what the sidecar holds for them is bounded:
//
//   - at most MaxInflight tool calls run at once, each in its goroutine;
//   - behind them waits a queue of at most MaxInflight requests and
//     queueBytes bytes of frames — requests, not goroutines (a frame bigger
//     than the byte bound waits alone);
//   - while the queue is full the read loop stops reading stdin, so the
//     pipe pushes back on the host;
//   - if no room frees within shedAfter (every running call may be waiting
//     for a reply that sits behind the unread requests), the read loop reads
//     on and answers each request that does not fit -32003 busy, until room
//     frees; replies to reverse calls and $/cancelRequest are always read.
//
// Requests that need no slot — system methods, unknown methods — are cheap
// and never wait for the host; at most lightCap of them run at once, and
// the read loop waits for one to finish rather than answer busy (so
// system.shutdown is always taken).

// limits are the bounds above.
type limits struct {
	inflight   int
	queue      int
	queueBytes int
	light      int
	shedAfter  time.Duration
}

const (
	defaultQueueBytes = 8 << 20
	defaultShedAfter  = time.Second
	minLightCap       = 64
)

func newLimits(maxInflight int) limits {
	return limits{
		inflight: maxInflight, queue: maxInflight, queueBytes: defaultQueueBytes,
		light: max(minLightCap, maxInflight), shedAfter: defaultShedAfter,
	}
}

// admit takes one request from the read loop: it starts it, queues it, or
// answers it at once (duplicate id, shutting down, busy, or a method the
// read loop answers itself: onReader). It reports false when it answered
// busy.
func (d *dispatcher) admit(msg wire.Message, size int) bool {
	m, known := d.methods[msg.Method]
	if known && m.onReader != nil && d.answerOnReader(msg, m) {
		return true
	}
	needsSlot := known && !m.system
	d.mu.Lock()
	if _, dup := d.inflight[msg.ID.Key]; dup {
		d.mu.Unlock()
		d.replyNow(msg, nil, errDuplicateID(msg.ID))
		return true
	}
	if d.draining && !m.system {
		d.mu.Unlock()
		d.replyNow(msg, nil, errCancelledByStop)
		return true
	}
	if needsSlot && d.running >= d.limits.inflight && !d.queueHasRoom(size) {
		busy := protocol.Errorf(protocol.CodeBusy, // the counts are read under mu
			"busy: %d calls are running and %d waiting (STEERABLE_MAX_INFLIGHT); retry when a reply arrives", d.running, len(d.queue))
		d.mu.Unlock()
		d.replyNow(msg, nil, busy)
		return false
	}
	for !needsSlot && d.light >= d.limits.light {
		d.mu.Unlock()
		d.srv.st.Writer().Flush() // before a wait: its answers must not wait too
		d.mu.Lock()
		if d.light >= d.limits.light {
			d.lightCap.Wait()
		}
	}
	c := &call{msg: msg, m: m, known: known, size: size}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	d.inflight[msg.ID.Key] = c
	if d.active == 0 {
		d.idle = make(chan struct{})
	}
	d.active++
	start := true
	switch {
	case !needsSlot:
		d.light++
	case d.running < d.limits.inflight:
		d.running++
		c.slot = true
	default:
		d.queue = append(d.queue, c)
		d.queued += size
		start = false
	}
	d.mu.Unlock()
	if start {
		d.start(c)
	}
	return true
}

// answerOnReader answers msg without a worker, a context or a slot, and
// reports false when m must run the usual way this time. Nothing is
// admitted, so nothing can cancel it; an id in flight is still refused.
func (d *dispatcher) answerOnReader(msg wire.Message, m method) bool {
	d.mu.Lock()
	_, dup := d.inflight[msg.ID.Key]
	d.mu.Unlock()
	if dup {
		d.replyNow(msg, nil, errDuplicateID(msg.ID))
		return true
	}
	result, err, ok := d.callOnReader(msg, m)
	if ok {
		d.replyNow(msg, result, err)
	}
	return ok
}

func errDuplicateID(id wire.ID) error {
	return protocol.Errorf(protocol.CodeInvalidRequest, "request id %s is already in flight; use a new id", id)
}

// queueHasRoom: one more frame of size bytes may wait. Called with mu held.
func (d *dispatcher) queueHasRoom(size int) bool {
	if len(d.queue) >= d.limits.queue {
		return false
	}
	return len(d.queue) == 0 || d.queued+size <= d.limits.queueBytes
}

// full: the next request needing a slot could not be queued. The read loop
// asks before reading on.
func (d *dispatcher) full() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.running >= d.limits.inflight && (len(d.queue) >= d.limits.queue || d.queued >= d.limits.queueBytes)
}

// waitRoom waits until the queue has room or timeout passes, and reports
// which.
func (d *dispatcher) waitRoom(timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for d.full() {
		select {
		case <-d.room:
		case <-t.C:
			return !d.full()
		}
	}
	return true
}

// release gives up what c holds once its handler has returned: its slot
// goes to the oldest queued call.
func (d *dispatcher) release(c *call) {
	d.mu.Lock()
	var next *call
	switch {
	case c.slot:
		c.slot = false
		if len(d.queue) == 0 {
			d.running--
			break
		}
		next = d.queue[0]
		d.queue[0] = nil
		d.queue = d.queue[1:]
		d.queued -= next.size
		next.slot = true
	case !c.known || c.m.system:
		d.light--
		d.lightCap.Signal()
	}
	d.mu.Unlock()
	d.signalRoom()
	if next != nil {
		d.start(next)
	}
}

func (d *dispatcher) signalRoom() {
	select {
	case d.room <- struct{}{}:
	default:
	}
}

// cancel cancels the admitted call with the id key; a queued one leaves the
// queue and is answered at once. It reports whether there was such a call.
func (d *dispatcher) cancel(key string, cause error) bool {
	d.mu.Lock()
	c, ok := d.inflight[key]
	queued := false
	if ok {
		for i, q := range d.queue {
			if q == c {
				d.queue = append(d.queue[:i], d.queue[i+1:]...)
				d.queued -= c.size
				queued = true
				break
			}
		}
	}
	d.mu.Unlock()
	if !ok {
		return false
	}
	c.cancel(cause)
	if queued {
		d.signalRoom()
		d.start(c) // answers -32800 without running
	}
	return true
}

// wait waits up to timeout for every admitted call to finish.
func (d *dispatcher) wait(timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-d.idleChan():
		return true
	case <-t.C:
		return false
	}
}
