package codesearch

import (
	"bytes"
	"regexp/syntax"
	"unicode/utf8"
)

// The literal fast path. A plain query is found with bytes.Index, which
// the Go runtime implements with SIMD on amd64 and arm64. A regular
// expression (or a case-insensitive query) is searched for a literal that
// every match must contain — "parseConfig" in `func\s+parseConfig\(` — and
// the expression runs only on the lines that hold it, which is how
// ripgrep avoids running its regex engine on most of a file.

// finder reports candidate positions.
type finder interface {
	// next is the first candidate at or after from, or -1.
	next(hay []byte, from int, st *findState) int
}

// findState caches a finder's look-ahead within one region; the zero
// value is empty, and the scanner starts each region with a new one.
type findState struct {
	lo, up   int // next positions of the anchor's two cases (-1: none left)
	loFrom   int // where lo was searched from
	upFrom   int
	hasCache bool
}

type exactFinder struct{ needle []byte }

func (f exactFinder) next(hay []byte, from int, _ *findState) int {
	i := bytes.Index(hay[from:], f.needle)
	if i < 0 {
		return -1
	}
	return from + i
}

// foldFinder finds an ASCII literal in any case: it looks for the
// literal's rarest byte in both cases with bytes.IndexByte, then compares
// the window around it.
type foldFinder struct {
	needle []byte // lower case
	anchor int    // index of the rarest byte in needle
}

func newFoldFinder(lower []byte) foldFinder {
	best := 0
	for i, c := range lower {
		if byteRank(c) > byteRank(lower[best]) {
			best = i
		}
	}
	return foldFinder{needle: lower, anchor: best}
}

func (f foldFinder) next(hay []byte, from int, st *findState) int {
	lo := f.needle[f.anchor]
	up := toUpper(lo)
	for pos := from + f.anchor; pos < len(hay); {
		i := st.nextEither(hay, pos, lo, up)
		if i < 0 {
			return -1
		}
		start := i - f.anchor
		if start+len(f.needle) <= len(hay) && equalFoldASCII(hay[start:start+len(f.needle)], f.needle) {
			return start
		}
		pos = i + 1
	}
	return -1
}

// nextEither is the first position ≥ pos of byte a or b in hay, keeping
// each byte's next position so that a byte that occurs rarely is not
// searched for again on every call.
func (st *findState) nextEither(hay []byte, pos int, a, b byte) int {
	if !st.hasCache {
		*st = findState{lo: -2, up: -2, hasCache: true}
	}
	st.lo, st.loFrom = refresh(hay, pos, a, st.lo, st.loFrom)
	if a == b {
		return st.lo
	}
	st.up, st.upFrom = refresh(hay, pos, b, st.up, st.upFrom)
	switch {
	case st.lo < 0:
		return st.up
	case st.up < 0:
		return st.lo
	}
	return min(st.lo, st.up)
}

// refresh returns the next position ≥ pos of c, reusing cached (found
// searching from cachedFrom) when it is still valid.
func refresh(hay []byte, pos int, c byte, cached, cachedFrom int) (int, int) {
	if cached != -2 && cachedFrom <= pos && (cached == -1 || cached >= pos) {
		return cached, cachedFrom
	}
	i := bytes.IndexByte(hay[pos:], c)
	if i < 0 {
		return -1, pos
	}
	return pos + i, pos
}

func toUpper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func toLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}

func equalFoldASCII(s, lower []byte) bool {
	for i, c := range s {
		if toLower(c) != lower[i] {
			return false
		}
	}
	return true
}

// byteRank is how rare a byte is in source code and prose: higher is
// rarer. Letters rank by English frequency; space, 'e' and 't' are the
// commonest.
func byteRank(c byte) int {
	const common = " etaoinsrhldcumfpgwybvkxjqz" // most common first
	c = toLower(c)
	if i := bytes.IndexByte([]byte(common), c); i >= 0 {
		return i
	}
	switch {
	case c >= '0' && c <= '9':
		return 10
	case c == '\t' || c == '(' || c == ')' || c == '.' || c == ',' || c == '_' || c == '"':
		return 5
	}
	return 40
}

// piece is a literal that every match contains.
type piece struct {
	s    []byte // lower case when fold
	fold bool   // ASCII case-insensitive
}

func (p piece) finder() finder {
	if p.fold {
		return newFoldFinder(p.s)
	}
	return exactFinder{needle: p.s}
}

// required lists literals that every match of re must contain.
func required(re *syntax.Regexp) []piece {
	switch re.Op {
	case syntax.OpLiteral:
		return literalPieces(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpConcat:
		var out []piece
		for _, sub := range re.Sub {
			out = append(out, required(sub)...)
		}
		return out
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	}
	return nil
}

// literalPieces is the literal as one piece, or, case-insensitively, its
// longest runs of characters whose case variants are all ASCII (not k or
// s, which also fold to the Kelvin sign and the long s).
func literalPieces(runes []rune, fold bool) []piece {
	if !fold {
		return []piece{{s: []byte(string(runes))}}
	}
	var out []piece
	var cur []byte
	for _, r := range runes {
		if r < utf8.RuneSelf && !bytes.ContainsRune([]byte("kKsS"), r) {
			cur = append(cur, toLower(byte(r)))
			continue
		}
		if len(cur) > 0 {
			out = append(out, piece{s: cur, fold: true})
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, piece{s: cur, fold: true})
	}
	return out
}

// bestPiece picks the literal to search for: the longest, preferring an
// exact one (bytes.Index) unless a case-insensitive one is much longer. A
// single byte is too common to help.
func bestPiece(ps []piece) (piece, bool) {
	var best piece
	score := func(p piece) int {
		if p.fold {
			return len(p.s)
		}
		return len(p.s) + 2
	}
	for _, p := range ps {
		if len(p.s) >= 2 && score(p) > score(best) {
			best = p
		}
	}
	return best, len(best.s) >= 2
}
