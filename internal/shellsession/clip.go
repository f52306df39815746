package shellsession

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// clipHeadShare is the part of a clipped read kept from its start; the rest
// of the budget goes to the end, where a terminal's latest state is (the
// same split as read_file's view).
const clipHeadShare = 5

// Clip bounds one read to max characters (code points; an invalid byte
// counts as one): beyond that it keeps the first fifth and the last four
// fifths, with a marker line naming how many characters were skipped in
// between. Invalid UTF-8 becomes U+FFFD, as JSON would make it anyway.
func Clip(text []byte, max int) (out string, skipped int) {
	s := strings.ToValidUTF8(string(text), "\uFFFD")
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, 0
	}
	head := max / clipHeadShare
	tail := max - head
	skipped = n - head - tail
	headEnd := runeOffset(s, head)
	tailStart := runeOffset(s, n-tail)
	return s[:headEnd] + fmt.Sprintf("\n...[%d characters skipped]...\n", skipped) + s[tailStart:], skipped
}

// runeOffset is the byte offset of the k-th character of s.
func runeOffset(s string, k int) int {
	for i := range s {
		if k == 0 {
			return i
		}
		k--
	}
	return len(s)
}

// droppedNote starts a read whose beginning the ring no longer held.
func droppedNote(dropped int64, size int) string {
	return fmt.Sprintf("...[%d bytes of earlier output dropped: the session keeps the last %d bytes "+
		"(STEERABLE_SESSION_BUFFER_BYTES); read more often, or redirect the output to a file]...\n", dropped, size)
}
