package files

import "steerable.dev/sidecar/internal/clip"

// The clip of read_file (SPEC §4.1): a view longer than ClipHead+ClipTail
// characters (Unicode code points) keeps the first ClipHead and the last
// ClipTail with the marker line (internal/clip) between them.
const (
	ClipHead = 20_000
	ClipTail = 80_000
)

var readClip = clip.Limit{Head: ClipHead, Tail: ClipTail, Unit: clip.Chars}

// ClipMarker is the line that replaces n clipped characters.
func ClipMarker(n int) string { return clip.Marker(int64(n), clip.Chars) }

// Clip clips a view built in memory (a PDF's pages, a notebook's cells)
// as read_file clips a file: the text and the characters the marker
// replaced.
func Clip(s string) (string, int) {
	out, dropped := readClip.String(s)
	return out, int(dropped)
}
