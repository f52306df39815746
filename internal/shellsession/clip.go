package shellsession

import (
	"fmt"
	"strings"

	"steerable.dev/sidecar/internal/clip"
)

// clipHeadShare is the part of a clipped read kept from its start; the rest
// of the budget goes to the end, where a terminal's latest state is (the
// same split as read_file's view).
const clipHeadShare = 5

// Clip bounds one read to max characters (code points; an invalid byte
// counts as one): beyond that it keeps the first fifth and the last four
// fifths, with the marker line (internal/clip) naming how many characters
// were left out in between. Invalid UTF-8 becomes U+FFFD, as JSON would make it anyway.
func Clip(text []byte, max int) (out string, skipped int) {
	s := strings.ToValidUTF8(string(text), "\uFFFD")
	out, dropped := clip.Limit{Head: max / clipHeadShare, Tail: max - max/clipHeadShare, Unit: clip.Chars}.String(s)
	return out, int(dropped)
}

// droppedNote starts a read whose beginning the ring no longer held.
func droppedNote(dropped int64, size int) string {
	return fmt.Sprintf("...[%d bytes of earlier output dropped: the session keeps the last %d bytes "+
		"(STEERABLE_SESSION_BUFFER_BYTES); read more often, or redirect the output to a file]...\n", dropped, size)
}
