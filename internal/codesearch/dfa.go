package codesearch

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// A lazy DFA over bytes, for an expression without a literal to look for.
// Go's regexp has no DFA: on a large input it runs a Pike VM at tens of MB/s
// per core. This one is built, a state at a time as the text needs it, from
// the same compiled program, and is used only as a filter: it finds the
// lines that can match, and the regexp then runs on each of those lines, so
// every hit, its line and its position are the regexp's own. The filter
// must never miss a matching line, and is exact on ASCII text:
//
//   - states are sets of the program's instructions, simulated on bytes;
//     the empty-width assertions (\b \B ^ $) are resolved, as in RE2, when
//     the next byte is seen, from a flag kept in the state (was the last
//     byte a word byte, is this a line start); a word byte is ASCII in Go's
//     regexp too;
//   - a non-ASCII character is seen as its lead byte, matching every
//     instruction that matches some non-ASCII rune, and its continuation
//     bytes as either nothing or such a character (a stray one is a rune of
//     its own, U+FFFD, to the regexp); so every way the regexp decodes a
//     line is a path through the DFA, and the DFA answers for a superset;
//   - a line break returns to the line-start state: matches are line-local
//     (lineLocal), so the search restarts on each line.
//
// Time stays linear: each byte costs a table lookup, or, the first time a
// state meets a class of bytes, one pass over the program. Memory is bounded
// per worker by dfaCacheBytes; a cache that fills is emptied and rebuilt,
// and one that keeps filling (an expression whose DFA explodes) gives up,
// leaving the rest of that worker's search to the regexp.

const (
	maxDFAInsts   = 10000   // a larger program is left to the regexp
	dfaCacheBytes = 1 << 20 // states and transitions per worker
	maxDFAStates  = 8192
	// dfaBytesPerState: a cache that filled again within fewer bytes per
	// state than this is thrashing, and the DFA gives up.
	dfaBytesPerState = 16
)

// Transition table entries below zero.
const (
	dfaUnknown int32 = -1 // not computed yet
	dfaMatch   int32 = -2 // a match ends before this byte
)

// Flags of a state: what the empty-width assertions need to know of the
// position before the next byte.
const (
	flagWord      = 1 << iota // the last byte was a word byte
	flagLineStart             // at the start of a line
)

// dfaProg is what every worker's DFA shares: the program and its byte
// classes, read-only after newDFAProg.
type dfaProg struct {
	prog     *syntax.Prog
	class    [256]uint8 // byte → class
	nclass   int
	newline  uint8       // the class of '\n' (also used for the end of the text)
	lead     uint8       // bytes 0xC0–0xFF: a non-ASCII character begins (or an invalid byte)
	cont     uint8       // bytes 0x80–0xBF: a continuation byte
	repr     []byte      // an ASCII class's representative byte
	word     []bool      // a class of word bytes
	wordByte [256]uint8  // 1 for a word byte
	ascii    [][2]uint64 // per instruction: the ASCII bytes it matches
	nonASCII []bool      // per instruction: it matches some rune ≥ 0x80
}

// newDFAProg compiles expr (as regexp.Compile does) for the DFA; nil when
// the program is too large.
func newDFAProg(expr string) *dfaProg {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil || len(prog.Inst) > maxDFAInsts {
		return nil
	}
	p := &dfaProg{prog: prog, ascii: make([][2]uint64, len(prog.Inst)), nonASCII: make([]bool, len(prog.Inst))}
	var masks [][2]uint64
	for pc := range prog.Inst {
		inst := &prog.Inst[pc]
		if !isRuneOp(inst.Op) {
			continue
		}
		for b := range utf8.RuneSelf {
			if matchesASCII(inst, byte(b)) {
				p.ascii[pc][b/64] |= 1 << (b % 64)
			}
		}
		p.nonASCII[pc] = matchesNonASCII(inst)
		masks = append(masks, p.ascii[pc])
	}
	p.classify(masks)
	return p
}

// matchesASCII reports whether the rune instruction inst matches b.
func matchesASCII(inst *syntax.Inst, b byte) bool {
	switch inst.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return b != '\n'
	}
	return inst.MatchRune(rune(b))
}

func isRuneOp(op syntax.InstOp) bool {
	return op == syntax.InstRune || op == syntax.InstRune1 || op == syntax.InstRuneAny || op == syntax.InstRuneAnyNotNL
}

// matchesNonASCII reports whether inst matches some rune ≥ 0x80 (U+FFFD
// included): a multi-range class through its upper bound, a single rune
// through its case-folding orbit (k folds to the Kelvin sign).
func matchesNonASCII(inst *syntax.Inst) bool {
	switch inst.Op {
	case syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		return true
	}
	rs := inst.Rune
	if len(rs) == 1 {
		r := rs[0]
		if r >= utf8.RuneSelf {
			return true
		}
		if inst.Op == syntax.InstRune && syntax.Flags(inst.Arg)&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f >= utf8.RuneSelf {
					return true
				}
			}
		}
		return false
	}
	for i := 1; i < len(rs); i += 2 {
		if rs[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// classify splits the ASCII bytes into classes that every instruction,
// the word test and the line break treat alike; the non-ASCII bytes are
// two classes of their own.
func (p *dfaProg) classify(masks [][2]uint64) {
	var word, nl [2]uint64
	for b := range utf8.RuneSelf {
		if syntax.IsWordChar(rune(b)) {
			word[b/64] |= 1 << (b % 64)
			p.wordByte[b] = 1
		}
	}
	nl[0] = 1 << '\n'
	masks = append(masks, word, nl)
	// Each byte's signature is its bit in every mask; equal signatures
	// share a class.
	ids := map[string]uint8{}
	sig := make([]byte, len(masks))
	for b := range utf8.RuneSelf {
		for i, m := range masks {
			sig[i] = byte(m[b/64] >> (b % 64) & 1)
		}
		id, ok := ids[string(sig)]
		if !ok {
			id = uint8(len(ids))
			ids[string(sig)] = id
			p.repr = append(p.repr, byte(b))
			p.word = append(p.word, syntax.IsWordChar(rune(b)))
		}
		p.class[b] = id
	}
	p.newline = p.class['\n']
	p.cont, p.lead = uint8(len(p.repr)), uint8(len(p.repr)+1)
	p.word = append(p.word, false, false)
	for b := 0x80; b < 0x100; b++ {
		p.class[b] = p.cont
		if b >= 0xC0 {
			p.class[b] = p.lead
		}
	}
	p.nclass = len(p.repr) + 2
}

// matches reports whether the rune instruction pc matches a byte of
// class c.
func (p *dfaProg) matches(pc uint32, c uint8) bool {
	if c >= p.cont {
		return p.nonASCII[pc]
	}
	b := p.repr[c]
	return p.ascii[pc][b/64]>>(b%64)&1 != 0
}

// dfaState is a set of instructions waiting for the next byte (sorted),
// and the flags of the position before it.
type dfaState struct {
	pcs   []uint32
	flags uint8
}

// lazyDFA is one worker's DFA: the states built so far and their
// transitions. It is not safe for concurrent use.
type lazyDFA struct {
	p      *dfaProg
	states []dfaState
	trans  []int32 // state offset (index × nclass) + class → next state's offset, or dfaUnknown, dfaMatch
	index  map[string]int32
	start  int32 // offset of the line-start state
	// idle are the offsets of the states that wait for a match to begin
	// (the program's start alone) after a non-word and a word byte; the
	// search stays in them over most text. stay[f][b] is true when byte b
	// leads from idle[f] to idle[word(b)], so find skips such bytes
	// without the table walk's chain of dependent loads.
	idle    [2]int32
	stay    [2][256]bool
	skip    bool // skipIdle is worth it (so far)
	entries int  // calls of skipIdle, up to skipProbe
	skipped int  // bytes they skipped
	limit   int  // states the cache holds
	bytes   int  // what its states and transitions take, about
	failed  bool // gave up: the regexp searches from now on
	scanned int  // bytes scanned since the cache was last emptied

	seen  []uint32 // per instruction: the generation that last added it
	gen   uint32
	stack []uint32
	runes []uint32
	next  []uint32
	key   []byte
}

func newLazyDFA(p *dfaProg) *lazyDFA {
	d := &lazyDFA{p: p, seen: make([]uint32, len(p.prog.Inst)), limit: maxDFAStates, skip: true}
	d.reset()
	return d
}

// reset empties the cache, leaving the line-start and the idle states.
func (d *lazyDFA) reset() {
	d.states, d.trans, d.index, d.bytes = d.states[:0], d.trans[:0], make(map[string]int32), 0
	start := []uint32{uint32(d.p.prog.Start)}
	d.start = d.add(start, flagLineStart)
	d.idle = [2]int32{d.add(start, 0), d.add(start, flagWord)}
	d.stay = [2][256]bool{}
	d.scanned = 0
}

// add returns the offset of the state (pcs, flags), adding it if new;
// pcs must be sorted and is copied.
func (d *lazyDFA) add(pcs []uint32, flags uint8) int32 {
	d.key = d.key[:0]
	d.key = append(d.key, flags)
	for _, pc := range pcs {
		d.key = append(d.key, byte(pc), byte(pc>>8), byte(pc>>16))
	}
	if off, ok := d.index[string(d.key)]; ok {
		return off
	}
	off := int32(len(d.states) * d.p.nclass)
	d.states = append(d.states, dfaState{pcs: slices.Clone(pcs), flags: flags})
	for range d.p.nclass {
		d.trans = append(d.trans, dfaUnknown)
	}
	d.index[string(d.key)] = off
	d.bytes += 4*d.p.nclass + 7*len(pcs) + 64 // transitions, pcs, key, overheads
	return off
}

// full reports whether the cache must be emptied before a state is added.
func (d *lazyDFA) full() bool {
	return len(d.states) >= d.limit || d.bytes >= dfaCacheBytes
}

// transition computes (and caches) the move of the state at off on a byte
// of class c. It returns dfaMatch, the next state's offset, or, when the
// DFA gives up, dfaUnknown.
func (d *lazyDFA) transition(off int32, c uint8) int32 {
	from := d.states[int(off)/d.p.nclass]
	matched := d.expand(from, c)
	var next int32
	switch {
	case matched:
		next = dfaMatch
	case c == d.p.newline:
		next = d.start
	default:
		d.step(from, c)
		if d.full() {
			if d.scanned < dfaBytesPerState*len(d.states) {
				d.failed = true
				return dfaUnknown
			}
			d.reset() // from is a copy: its pcs are not reused by the cache
			return d.add(d.next, d.flagsAfter(c))
		}
		next = d.add(d.next, d.flagsAfter(c))
	}
	d.trans[int(off)+int(c)] = next
	for f, idle := range d.idle {
		if off == idle && next == d.idle[d.flagsAfter(c)] {
			for b := range 256 {
				if d.p.class[b] == c {
					d.stay[f][b] = true
				}
			}
		}
	}
	return next
}

func (d *lazyDFA) flagsAfter(c uint8) uint8 {
	if d.p.word[c] {
		return flagWord
	}
	return 0
}

// expand follows the empty transitions of from's instructions at the
// position before a byte of class c, collecting the rune instructions in
// d.runes; it reports whether a match is reached.
func (d *lazyDFA) expand(from dfaState, c uint8) bool {
	var empty syntax.EmptyOp
	if from.flags&flagLineStart != 0 {
		empty |= syntax.EmptyBeginLine | syntax.EmptyBeginText
	}
	if c == d.p.newline {
		empty |= syntax.EmptyEndLine | syntax.EmptyEndText
	}
	if (from.flags&flagWord != 0) != d.p.word[c] {
		empty |= syntax.EmptyWordBoundary
	} else {
		empty |= syntax.EmptyNoWordBoundary
	}
	d.newGen()
	d.runes = d.runes[:0]
	d.stack = append(d.stack[:0], from.pcs...)
	insts := d.p.prog.Inst
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] == d.gen {
			continue
		}
		d.seen[pc] = d.gen
		inst := &insts[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, inst.Arg, inst.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^empty == 0 {
				d.stack = append(d.stack, inst.Out)
			}
		case syntax.InstMatch:
			return true
		case syntax.InstFail:
		default:
			d.runes = append(d.runes, pc)
		}
	}
	return false
}

// step moves the rune instructions of d.runes over a byte of class c into
// d.next (sorted, without duplicates), with the program's start added (the
// search is unanchored) and, for a continuation byte, from's own
// instructions (the byte may belong to the character before).
func (d *lazyDFA) step(from dfaState, c uint8) {
	d.newGen()
	d.next = d.next[:0]
	put := func(pc uint32) {
		if d.seen[pc] != d.gen {
			d.seen[pc] = d.gen
			d.next = append(d.next, pc)
		}
	}
	for _, pc := range d.runes {
		if d.p.matches(pc, c) {
			put(d.p.prog.Inst[pc].Out)
		}
	}
	if c == d.p.cont {
		for _, pc := range from.pcs {
			put(pc)
		}
	}
	put(uint32(d.p.prog.Start))
	slices.Sort(d.next)
}

func (d *lazyDFA) newGen() {
	d.gen++
	if d.gen == 0 { // wrapped: forget every mark
		clear(d.seen)
		d.gen = 1
	}
}

// dfaResult is what a DFA search found.
type dfaResult int8

const (
	dfaNone   dfaResult = iota // no line can match
	dfaFound                   // a line can match
	dfaGaveUp                  // the DFA gave up; the regexp must search
)

// find searches hay from from, a line start. With dfaFound, at is a
// position in the line that can match (its "\n", or len(hay) for a last
// line without one); with dfaGaveUp, at is where the DFA stopped.
func (d *lazyDFA) find(hay []byte, from int) (at int, res dfaResult) {
	if d.failed {
		return from, dfaGaveUp
	}
	if from >= len(hay) {
		return len(hay), dfaNone
	}
	var s int32
	if d.skip {
		at, s, res = d.walkSkipping(hay, from)
	} else {
		at, s, res = d.walk(hay, from)
	}
	d.scanned += at - from
	if res != dfaNone || hay[len(hay)-1] == '\n' {
		return at, res
	}
	// The last line has no "\n": its end is checked as if it had one.
	if d.move(s, d.p.newline) == dfaMatch {
		return len(hay), dfaFound
	}
	return len(hay), dfaNone
}

// walk is the table walk from from: it stops where a match ends
// (dfaFound), where the DFA gives up, or at the end of hay (dfaNone, in
// state s). Each byte's state waits for the load of the one before, so
// the loop is kept to a load and a compare.
func (d *lazyDFA) walk(hay []byte, from int) (i int, s int32, res dfaResult) {
	s = d.start
	trans, class := d.trans, &d.p.class
	for i = from; i < len(hay); i++ {
		t := trans[int(s)+int(class[hay[i]])]
		if t < 0 {
			if t = d.move(s, class[hay[i]]); t < 0 {
				return i, s, resultOf(t)
			}
			trans = d.trans
		}
		s = t
	}
	return i, s, dfaNone
}

// walkSkipping is walk that, in an idle state, skips what keeps it idle
// (skipIdle). It is a loop of its own: one loop testing a flag on every
// byte was slower for both kinds of expression (BenchmarkDFAFind).
func (d *lazyDFA) walkSkipping(hay []byte, from int) (i int, s int32, res dfaResult) {
	s = d.start
	trans, class := d.trans, &d.p.class
	for i = from; i < len(hay); {
		t := trans[int(s)+int(class[hay[i]])]
		if t < 0 {
			if t = d.move(s, class[hay[i]]); t < 0 {
				return i, s, resultOf(t)
			}
			trans = d.trans
		}
		s = t
		i++
		if s == d.idle[0] || s == d.idle[1] {
			i, s = d.skipIdle(hay, i, s == d.idle[1])
		}
	}
	return i, s, dfaNone
}

// move is the transition of state s on class c, computed when not yet
// known: a state's offset, dfaMatch, or dfaUnknown when the DFA gave up.
func (d *lazyDFA) move(s int32, c uint8) int32 {
	if t := d.trans[int(s)+int(c)]; t != dfaUnknown {
		return t
	}
	return d.transition(s, c)
}

func resultOf(t int32) dfaResult {
	if t == dfaMatch {
		return dfaFound
	}
	return dfaGaveUp
}

// Skipping idle bytes pays when the DFA stays idle for long (an expression
// that starts with a rare class); when it leaves idle every few bytes
// (\w+…), the plain walk is faster, and skipping stops after
// skipProbe entries that skipped fewer than skipMinRun bytes each.
const (
	skipProbe  = 4096
	skipMinRun = 6
)

// skipIdle skips from i the bytes that keep the DFA idle (in idle[1]
// when word). The state after such a byte depends on that byte alone, so
// no load waits for the one before, as in the table walk. It returns
// where it stopped and the idle state there.
func (d *lazyDFA) skipIdle(hay []byte, i int, word bool) (int, int32) {
	f := uint8(0)
	if word {
		f = 1
	}
	stay, wordByte := &d.stay, &d.p.wordByte
	start := i
	for i < len(hay) {
		b := hay[i]
		if !stay[f][b] {
			break
		}
		f = wordByte[b]
		i++
	}
	if d.entries < skipProbe {
		d.entries++
		d.skipped += i - start
		d.skip = d.entries < skipProbe || d.skipped >= skipMinRun*skipProbe
	}
	return i, d.idle[f]
}

// lineMayMatch runs the DFA over one line (without its "\n"); it reports
// true when the line can match or the DFA gave up.
func (d *lazyDFA) lineMayMatch(line []byte) bool {
	if len(line) == 0 { // the line-start state at the line's end
		return d.move(d.start, d.p.newline) == dfaMatch
	}
	_, res := d.find(line, 0)
	return res != dfaNone
}
