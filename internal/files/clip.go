package files

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The clip of read_file (SPEC §4.1): a view longer than ClipHead+ClipTail
// characters (Unicode code points) keeps the first ClipHead and the last
// ClipTail with a marker line between them.
const (
	ClipHead = 20_000
	ClipTail = 80_000
)

// ClipMarker is the line that replaces n clipped characters.
func ClipMarker(n int) string { return "\n...[" + strconv.Itoa(n) + " characters truncated]...\n" }

// clipper keeps the first ClipHead characters and enough of the rest to
// return either all of it (when the whole fits in ClipHead+ClipTail) or its
// last ClipTail characters. The rest is trimmed whenever it outgrows
// restCap, so memory stays bounded whatever the input size.
type clipper struct {
	head      []byte
	headChars int
	headDone  bool // the rune after the head's last has started
	rest      []byte
	total     int // characters seen
}

const restCap = 1 << 20 // well above ClipTail*utf8.UTFMax

// restBufs pools the clippers' rest buffers: add never lets rest outgrow
// restCap, so one buffer of that capacity serves a whole stream.
var restBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, restCap)
	return &b
}}

// release gives the rest buffer back; result's strings do not share it.
func (c *clipper) release() {
	if c.rest != nil {
		b := c.rest[:0]
		c.rest = nil
		restBufs.Put(&b)
	}
}

func (c *clipper) add(p []byte) {
	if !c.headDone {
		i := 0
		for ; i < len(p); i++ {
			if utf8.RuneStart(p[i]) {
				if c.headChars == ClipHead {
					c.headDone = true
					break
				}
				c.headChars++
			}
		}
		c.head = append(c.head, p[:i]...)
		c.total += countChars(p[:i])
		p = p[i:]
	}
	c.total += countChars(p)
	if c.rest == nil && len(p) > 0 {
		c.rest = *restBufs.Get().(*[]byte)
	}
	if len(c.rest)+len(p) > restCap {
		c.rest = c.rest[:copy(c.rest, lastChars(c.rest, ClipTail))]
		if len(p) > restCap/2 {
			c.rest = c.rest[:0]
			p = lastChars(p, ClipTail)
		}
	}
	c.rest = append(c.rest, p...)
}

// result is the kept text and the number of characters the marker stands
// for.
func (c *clipper) result() (string, int) {
	if c.total <= ClipHead+ClipTail {
		return string(c.head) + string(c.rest), 0
	}
	dropped := c.total - ClipHead - ClipTail
	return string(c.head) + ClipMarker(dropped) + string(lastChars(c.rest, ClipTail)), dropped
}

// Clip clips a view built in memory (a PDF's pages, a notebook's cells)
// as read_file clips a file: the text and the characters the marker
// replaced.
func Clip(s string) (string, int) { return clipString(s) }

// clipString clips a text in memory as the clipper clips a stream: the
// text itself when it fits, else its first ClipHead and last ClipTail
// characters around the marker.
func clipString(s string) (string, int) {
	total := utf8.RuneCountInString(s)
	if total <= ClipHead+ClipTail {
		return s, 0
	}
	head := 0
	for range ClipHead {
		_, size := utf8.DecodeRuneInString(s[head:])
		head += size
	}
	dropped := total - ClipHead - ClipTail
	return s[:head] + ClipMarker(dropped) + lastChars(s, ClipTail), dropped
}

// lastChars is the suffix of p holding its last n characters (all of p if
// it has fewer).
func lastChars[T ~string | ~[]byte](p T, n int) T {
	seen := 0
	for i := len(p) - 1; i >= 0; i-- {
		if utf8.RuneStart(p[i]) {
			if seen++; seen == n {
				return p[i:]
			}
		}
	}
	return p
}

// countChars counts the characters (rune starts) in p, which may begin or
// end inside a rune: every byte that is not a continuation byte (10xxxxxx)
// starts one. Eight bytes at a time: a byte is a continuation byte when its
// top bit is set and the next bit is clear.
func countChars(p []byte) int {
	const hi = 0x8080808080808080
	n, cont := len(p), 0
	for len(p) >= 8 {
		x := binary.LittleEndian.Uint64(p)
		cont += bits.OnesCount64(x & ^(x << 1) & hi)
		p = p[8:]
	}
	for _, b := range p {
		if b&0xC0 == 0x80 {
			cont++
		}
	}
	return n - cont
}
