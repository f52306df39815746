package clip

import (
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// Unit is what a Limit counts.
type Unit int

const (
	// Bytes counts bytes.
	Bytes Unit = iota
	// Chars counts characters: bytes that are not UTF-8 continuation bytes.
	Chars
)

// String is the unit's name in the marker.
func (u Unit) String() string {
	if u == Chars {
		return "characters"
	}
	return "bytes"
}

// Marker is the line that stands for n dropped units.
func Marker(n int64, u Unit) string {
	return "\n...[" + strconv.FormatInt(n, 10) + " " + u.String() + " truncated]...\n"
}

// Limit keeps the first Head and the last Tail units of a text longer than
// Head+Tail, with the marker between them.
type Limit struct {
	Head, Tail int
	Unit       Unit
}

// Halves is the limit that splits max units evenly between head and tail.
func Halves(max int, u Unit) Limit { return Limit{Head: max / 2, Tail: max - max/2, Unit: u} }

// String clips s: s itself when it fits, else its head, the marker and its
// tail; dropped is the N of the marker (0 when s fits).
func (l Limit) String(s string) (out string, dropped int64) {
	total := l.count(s)
	if total <= int64(l.Head+l.Tail) {
		return s, 0
	}
	head, tail, dropped := l.cut(s[:l.headEnd(s)], l.last(s), total)
	return head + Marker(dropped, l.Unit) + tail, dropped
}

// Within clips s to at most n bytes, marker included, keeping equal halves
// of head and tail: for a bounded message built from untrusted text.
func Within(s string, n int) string {
	if len(s) <= n {
		return s
	}
	keep := max(0, n-len(Marker(int64(len(s)), Bytes)))
	out, _ := Halves(keep, Bytes).String(s)
	return out
}

// cut trims the kept head and tail to whole characters (Bytes only: a Chars
// cut falls between characters already) and counts what the marker stands
// for.
func (l Limit) cut(head, tail string, total int64) (string, string, int64) {
	if l.Unit == Bytes {
		head, tail = trimRuneEnd(head), trimRuneStart(tail)
	}
	return head, tail, total - l.count(head) - l.count(tail)
}

// count is the number of units in p.
func (l Limit) count(p string) int64 {
	if l.Unit == Chars {
		return int64(countChars(p))
	}
	return int64(len(p))
}

// headEnd is the byte length of the first Head units of s (with the
// continuation bytes of the last character).
func (l Limit) headEnd(s string) int {
	if l.Unit == Bytes {
		return min(l.Head, len(s))
	}
	seen := 0
	for i := 0; i < len(s); i++ {
		if utf8.RuneStart(s[i]) {
			if seen == l.Head {
				return i
			}
			seen++
		}
	}
	return len(s)
}

// last is the suffix of p holding its last Tail units (all of p if it has
// fewer).
func (l Limit) last(p string) string { return lastUnits(p, l.Tail, l.Unit) }

func lastUnits[T ~string | ~[]byte](p T, n int, u Unit) T {
	if u == Bytes {
		return p[len(p)-min(n, len(p)):]
	}
	if n == 0 {
		return p[len(p):]
	}
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
func countChars[T ~string | ~[]byte](p T) int {
	const hi = 0x8080808080808080
	n, cont := len(p), 0
	for len(p) >= 8 {
		_ = p[7] // one bounds check for the eight loads
		x := uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
			uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
		cont += bits.OnesCount64(x & ^(x << 1) & hi)
		p = p[8:]
	}
	for i := 0; i < len(p); i++ {
		if p[i]&0xC0 == 0x80 {
			cont++
		}
	}
	return n - cont
}

// trimRuneEnd drops an incomplete UTF-8 sequence at the end of s.
func trimRuneEnd(s string) string {
	for i := 1; i <= utf8.UTFMax && i <= len(s); i++ {
		if utf8.RuneStart(s[len(s)-i]) {
			if !utf8.FullRuneInString(s[len(s)-i:]) {
				return s[:len(s)-i]
			}
			break
		}
	}
	return s
}

// trimRuneStart drops continuation bytes at the start of s.
func trimRuneStart(s string) string {
	for i := 0; i < utf8.UTFMax && i < len(s); i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}

// Short cuts s to its first n characters and an ellipsis: for text that
// must stay on one line (a name in an error message, a summary, a source
// excerpt), where the marker line would break it. It never splits a
// UTF-8 sequence.
func Short(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}
