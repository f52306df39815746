package textedit

import (
	"encoding/binary"
	"sort"
	"strings"
	"unicode/utf8"
)

// foldRune is the ASCII stand-in for a typographic character models often
// type in place of the ASCII one in the file (and the reverse): curly
// quotes, dashes, the ellipsis and non-breaking or fixed-width spaces.
func foldRune(r rune) (string, bool) {
	switch r {
	case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032':
		return "'", true
	case '\u201c', '\u201d', '\u201e', '\u201f', '\u2033':
		return `"`, true
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return "-", true
	case '\u2026':
		return "...", true
	case '\u00a0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008',
		'\u2009', '\u200a', '\u202f', '\u205f', '\u3000':
		return " ", true
	}
	return "", false
}

// folded is a text with its typographic characters folded (foldRune) and
// the way back from an offset in it to one in the original.
type folded struct {
	text string
	segs []foldSeg // the replacements, in order
}

// foldSeg is one replaced character: n folded bytes at offset at stand for
// origN original bytes at offset orig.
type foldSeg struct{ at, n, orig, origN int }

// fold folds s; a text without such characters is returned as it is,
// without allocating.
func fold(s string) folded {
	var b strings.Builder
	var segs []foldSeg
	last := 0
	for i := asciiPrefix(s); i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		rep, ok := foldRune(r)
		if !ok {
			i += size
			continue
		}
		if segs == nil {
			b.Grow(len(s))
		}
		b.WriteString(s[last:i])
		segs = append(segs, foldSeg{at: b.Len(), n: len(rep), orig: i, origN: size})
		b.WriteString(rep)
		i += size
		last = i
	}
	if segs == nil {
		return folded{text: s}
	}
	b.WriteString(s[last:])
	return folded{text: b.String(), segs: segs}
}

// asciiPrefix is the length of s's leading ASCII bytes, eight at a time:
// most files are ASCII, and fold has nothing to do there.
func asciiPrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64([]byte(s[i:i+8]))&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// foldString is s folded.
func foldString(s string) string { return fold(s).text }

// orig maps an offset of the folded text back to the original. ok is false
// for an offset inside a replacement ("..." for "…" has two), which no
// original offset corresponds to.
func (f folded) orig(x int) (int, bool) {
	k := sort.Search(len(f.segs), func(j int) bool { return f.segs[j].at > x }) - 1
	if k < 0 {
		return x, true
	}
	s := f.segs[k]
	switch {
	case x == s.at:
		return s.orig, true
	case x < s.at+s.n:
		return 0, false
	}
	return s.orig + s.origN + x - s.at - s.n, true
}

// Match levels, in the order they are tried.
const (
	LevelExact   = "exact"
	LevelTrim    = "trim"
	LevelUnicode = "unicode"
)

// Levels lists the match levels in order.
var Levels = []string{LevelExact, LevelTrim, LevelUnicode}

// trimKey is how a line compares at the trim level.
func trimKey(line string) string { return strings.TrimSpace(line) }

// foldKey is how a line compares at the unicode level's whole-line step.
func foldKey(line string) string { return strings.TrimSpace(foldString(strings.TrimSpace(line))) }
