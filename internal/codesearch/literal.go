package codesearch

import (
	"bytes"
	"regexp/syntax"
	"unicode/utf8"
)

// The literal fast path. A plain query is found with bytes.IndexByte on
// its rarest byte (or bytes.Index), which the Go runtime implements with
// SIMD on amd64 and arm64. A regular
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

	subs    []findState // multiFinder: each literal's state,
	pos     []int       // next position (-1: none left, -2: not searched)
	posFrom []int       // and where it was searched from
}

// exactFinder finds a literal. When the literal has a byte that is rare
// in text (an upper-case letter, a digit, most punctuation), it looks for
// that byte with bytes.IndexByte and compares the window around it;
// otherwise bytes.Index, which anchors on the first byte, does as well.
type exactFinder struct {
	needle []byte
	anchor int // index of the rarest byte, -1: use bytes.Index
}

func newExactFinder(needle []byte) exactFinder {
	best := 0
	for i, c := range needle {
		if exactRank(c) > exactRank(needle[best]) {
			best = i
		}
	}
	if best == 0 || exactRank(needle[best]) < rareRank {
		best = -1
	}
	return exactFinder{needle: needle, anchor: best}
}

func (f exactFinder) next(hay []byte, from int, _ *findState) int {
	if f.anchor < 0 {
		i := bytes.Index(hay[from:], f.needle)
		if i < 0 {
			return -1
		}
		return from + i
	}
	c := f.needle[f.anchor]
	for pos := from + f.anchor; pos < len(hay); {
		i := bytes.IndexByte(hay[pos:], c)
		if i < 0 {
			return -1
		}
		start := pos + i - f.anchor
		if start+len(f.needle) <= len(hay) && bytes.Equal(hay[start:start+len(f.needle)], f.needle) {
			return start
		}
		pos += i + 1
	}
	return -1
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

// rareRank is the exactRank from which a byte is worth anchoring on.
const rareRank = 20

// exactRank is byteRank for a case-sensitive search: upper-case letters
// are rarer than lower-case ones in code and prose.
func exactRank(c byte) int {
	if c >= 'A' && c <= 'Z' {
		return 20 + byteRank(c)
	}
	return byteRank(c)
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
	return newExactFinder(p.s)
}

// need is a set of literals of which every match contains at least one
// ("TODO" or "FIXME" for TODO|FIXME).
type need []piece

// maxNeed bounds the literals of one need: each costs a pass over the text.
const maxNeed = 8

// required lists needs that every match of re satisfies.
func required(re *syntax.Regexp) []need {
	switch re.Op {
	case syntax.OpLiteral:
		var out []need
		for _, p := range literalPieces(re.Rune, re.Flags&syntax.FoldCase != 0) {
			out = append(out, need{p})
		}
		return out
	case syntax.OpConcat:
		var out []need
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
	case syntax.OpAlternate:
		var any need
		for _, sub := range re.Sub {
			n, ok := bestNeed(required(sub))
			if !ok || len(any)+len(n) > maxNeed {
				return nil
			}
			any = append(any, n...)
		}
		return []need{any}
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

// score is how well a piece narrows the search: 0 is useless (a single
// common byte), longer is better, exact beats case-insensitive.
func (p piece) score() int {
	switch {
	case len(p.s) == 0:
		return 0
	case len(p.s) == 1 && (p.fold || exactRank(p.s[0]) < rareRank):
		return 0
	case p.fold:
		return 2 * len(p.s)
	}
	return 2*len(p.s) + 3
}

// score of a need is its weakest literal's, less one per extra literal
// (each is another pass).
func (n need) score() int {
	if len(n) == 0 {
		return 0
	}
	low := n[0].score()
	for _, p := range n[1:] {
		low = min(low, p.score())
	}
	if low == 0 {
		return 0
	}
	return max(1, low-(len(n)-1))
}

// rarestByte is the rarest single byte that every match holds (a need of
// one one-byte exact literal), for an expression with no better literal.
func rarestByte(ns []need) (byte, bool) {
	var best byte
	found := false
	for _, n := range ns {
		if len(n) == 1 && !n[0].fold && len(n[0].s) == 1 && (!found || exactRank(n[0].s[0]) > exactRank(best)) {
			best, found = n[0].s[0], true
		}
	}
	return best, found
}

// bestNeed picks the need to search for; ok is false when none helps.
func bestNeed(ns []need) (need, bool) {
	var best need
	for _, n := range ns {
		if n.score() > best.score() {
			best = n
		}
	}
	return best, best.score() > 0
}

func (n need) finder() finder {
	if len(n) == 1 {
		return n[0].finder()
	}
	fs := make([]finder, len(n))
	for i, p := range n {
		fs[i] = p.finder()
	}
	return multiFinder(fs)
}

// multiFinder finds the first of several literals; each one's next
// position is kept until passed, so each is searched for once per region.
type multiFinder []finder

func (m multiFinder) next(hay []byte, from int, st *findState) int {
	if len(st.subs) != len(m) {
		st.subs = make([]findState, len(m))
		st.pos = make([]int, len(m))
		st.posFrom = make([]int, len(m))
		for i := range st.pos {
			st.pos[i] = -2
		}
	}
	best := -1
	for i, f := range m {
		if st.pos[i] == -2 || st.posFrom[i] > from || (st.pos[i] >= 0 && st.pos[i] < from) {
			st.pos[i], st.posFrom[i] = f.next(hay, from, &st.subs[i]), from
		}
		if p := st.pos[i]; p >= 0 && (best < 0 || p < best) {
			best = p
		}
	}
	return best
}
