package launch

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Capture keeps a bounded view of one output stream: the first half of its
// budget and the last half, however much is written, so a command that
// prints gigabytes costs max bytes of memory. The middle is replaced by a
// marker naming how much was dropped.
type Capture struct {
	max   int
	head  []byte
	tail  []byte // ring buffer of cap max-max/2 once head is full
	start int    // oldest byte of tail when the ring has wrapped
	total int64
}

// NewCapture keeps at most max bytes (max ≥ 2).
func NewCapture(max int) *Capture {
	return &Capture{max: max, head: make([]byte, 0, min(max/2, 64<<10))}
}

// Write implements io.Writer; it never fails.
func (c *Capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := c.max/2 - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.writeTail(p)
	return n, nil
}

func (c *Capture) writeTail(p []byte) {
	size := c.max - c.max/2
	if len(p) >= size { // only the last size bytes can survive
		c.tail = append(c.tail[:0], p[len(p)-size:]...)
		c.start = 0
		return
	}
	if room := size - len(c.tail); room > 0 {
		k := min(room, len(p))
		c.tail = append(c.tail, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 { // the ring is full: overwrite the oldest bytes
		k := copy(c.tail[c.start:], p)
		p = p[k:]
		c.start = (c.start + k) % size
	}
}

// Total is the number of bytes written.
func (c *Capture) Total() int64 { return c.total }

// Truncated reports whether bytes were dropped.
func (c *Capture) Truncated() bool { return c.total > int64(c.max) }

// String returns the kept bytes in order. When the middle was dropped, a
// marker line stands in its place and the cut edges are trimmed to whole
// UTF-8 characters.
func (c *Capture) String() string {
	tail := append(c.tail[c.start:len(c.tail):len(c.tail)], c.tail[:c.start]...)
	if !c.Truncated() {
		return string(c.head) + string(tail)
	}
	head, tail := trimRuneEnd(c.head), trimRuneStart(tail)
	dropped := c.total - int64(len(head)) - int64(len(tail))
	var b strings.Builder
	b.Grow(len(head) + len(tail) + 48)
	b.Write(head)
	fmt.Fprintf(&b, "\n...[%d bytes truncated]...\n", dropped)
	b.Write(tail)
	return b.String()
}

// trimRuneEnd drops an incomplete UTF-8 sequence at the end of b.
func trimRuneEnd(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// trimRuneStart drops continuation bytes at the start of b.
func trimRuneStart(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}
