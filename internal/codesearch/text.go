package codesearch

import (
	"strings"
	"unicode/utf8"
)

// MaxTextChars bounds the text of a hit and of each context line, in
// characters (code points): a minified file's one line must not flood the
// result.
const MaxTextChars = 500

// textLead is how many characters of a long line are kept before the
// match, so the match is in view.
const textLead = 100

// ellipsis marks where a long line was cut.
const ellipsis = "…"

// window is line as text, cut to MaxTextChars around the match at byte
// offset at when it is longer: the cut ends are marked with "…" (which
// count towards the limit). Invalid UTF-8 becomes U+FFFD.
func window(line []byte, at int) string {
	if utf8.RuneCount(line) <= MaxTextChars {
		return valid(line)
	}
	start := at
	for back := 0; back < textLead && start > 0; back++ {
		_, size := utf8.DecodeLastRune(line[:start])
		start -= size
	}
	budget := MaxTextChars
	prefix := ""
	if start > 0 {
		prefix = ellipsis
		budget--
	}
	end := advance(line, start, budget)
	if end < len(line) {
		end = advance(line, start, budget-1)
		return prefix + valid(line[start:end]) + ellipsis
	}
	// The match is near the end: show the last characters of the line.
	start = len(line)
	for n := 0; n < MaxTextChars-1; n++ {
		_, size := utf8.DecodeLastRune(line[:start])
		start -= size
	}
	return ellipsis + valid(line[start:])
}

// headText is a context line, cut to its first MaxTextChars characters.
func headText(line []byte) string {
	if utf8.RuneCount(line) <= MaxTextChars {
		return valid(line)
	}
	return valid(line[:advance(line, 0, MaxTextChars-1)]) + ellipsis
}

// advance is the byte offset n characters after start.
func advance(b []byte, start, n int) int {
	i := start
	for ; n > 0 && i < len(b); n-- {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return i
}

func valid(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
