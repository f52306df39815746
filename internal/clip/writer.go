package clip

import "sync"

// Writer keeps a bounded view of a stream: its first Head units and enough
// of the rest to give either all of it (when the whole fits the limit) or
// its last Tail units. The rest is trimmed whenever it outgrows twice what
// Tail can take, so memory stays bounded however much is written. It is not
// safe for concurrent use.
type Writer struct {
	l         Limit
	head      []byte
	headUnits int
	headDone  bool // the unit after the head's last has started
	rest      []byte
	restCap   int
	total     int64 // units written
}

// NewWriter returns a Writer that clips to l.
func NewWriter(l Limit) *Writer {
	width := 1
	if l.Unit == Chars {
		width = 4 // utf8.UTFMax bytes per character
	}
	return &Writer{l: l, restCap: max(2*l.Tail*width, 64)}
}

// restBufs pools the rest buffers of writers whose rest outgrows the head:
// big outputs come in bursts (a read_file of a large file, a noisy
// command) and a pooled buffer spares the allocation of the next.
var restBufs sync.Pool

// Write implements io.Writer; it never fails.
func (w *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if !w.headDone {
		i := w.headBytes(p)
		w.head = append(w.head, p[:i]...)
		w.total += int64(w.l.countBytes(p[:i]))
		p = p[i:]
	}
	if len(p) == 0 {
		return n, nil
	}
	w.total += int64(w.l.countBytes(p))
	if w.rest == nil {
		w.rest = w.buffer()
	}
	if len(w.rest)+len(p) > w.restCap {
		w.rest = w.rest[:copy(w.rest, lastUnits(w.rest, w.l.Tail, w.l.Unit))]
		if len(p) > w.restCap/2 {
			w.rest = w.rest[:0]
			p = lastUnits(p, w.l.Tail, w.l.Unit)
		}
	}
	w.rest = append(w.rest, p...)
	return n, nil
}

// headBytes is how many bytes of p still belong to the head, and notes
// when the head is complete.
func (w *Writer) headBytes(p []byte) int {
	if w.l.Unit == Bytes {
		k := min(w.l.Head-len(w.head), len(p))
		w.headDone = len(w.head)+k == w.l.Head
		return k
	}
	for i := 0; i < len(p); i++ {
		if p[i]&0xC0 != 0x80 { // a character starts
			if w.headUnits == w.l.Head {
				w.headDone = true
				return i
			}
			w.headUnits++
		}
	}
	return len(p)
}

func (w *Writer) buffer() []byte {
	if b, ok := restBufs.Get().(*[]byte); ok && cap(*b) >= w.restCap {
		return (*b)[:0]
	}
	return make([]byte, 0, w.restCap)
}

// Release gives the writer's buffer back for another; the strings it
// returned stay valid, the writer must not be used after.
func (w *Writer) Release() {
	if w.rest != nil {
		b := w.rest[:0]
		w.rest = nil
		restBufs.Put(&b)
	}
}

// Total is the number of units written.
func (w *Writer) Total() int64 { return w.total }

// Truncated reports whether units were dropped.
func (w *Writer) Truncated() bool { return w.total > int64(w.l.Head+w.l.Tail) }

// String is the clipped text: Result without the count.
func (w *Writer) String() string {
	s, _ := w.Result()
	return s
}

// Result is what Limit.String would make of everything written: the text
// itself when it fits, else head, marker and tail; dropped is the N of the
// marker.
func (w *Writer) Result() (out string, dropped int64) {
	if !w.Truncated() {
		return string(w.head) + string(w.rest), 0
	}
	head, tail, dropped := w.l.cut(string(w.head), string(lastUnits(w.rest, w.l.Tail, w.l.Unit)), w.total)
	return head + Marker(dropped, w.l.Unit) + tail, dropped
}

func (l Limit) countBytes(p []byte) int {
	if l.Unit == Chars {
		return countChars(p)
	}
	return len(p)
}
