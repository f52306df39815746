package codesearch

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lineHit is a matching line as the reference sees it: its number and
// where the match begins in it.
type lineHit struct {
	Line, At int
}

// perLine is the reference: the matcher's own expression run on each
// line alone (the line as the scanner cuts it: without "\n", with a "\r").
func perLine(m *matcher, text []byte) []lineHit {
	var out []lineHit
	start := 0
	for n := 1; start < len(text); n++ {
		end := lineAt(text, start)
		if loc := m.re.FindIndex(text[start:end]); loc != nil {
			out = append(out, lineHit{n, loc[0]})
		}
		start = end + 1
	}
	return out
}

// byMatcher is what m.next finds over the whole text, the way the scanner
// calls it, with the DFA d (nil: the expression alone) and the sparse byte
// used or not.
func byMatcher(m *matcher, text []byte, sparse bool, d *lazyDFA) []lineHit {
	var out []lineHit
	var st findState
	for pos := 0; pos < len(text); {
		l, ok := m.next(text, pos, &st, sparse && m.sparse != nil, d)
		if !ok {
			break
		}
		out = append(out, lineHit{bytes.Count(text[:l.start], newline) + 1, l.at - l.start})
		pos = l.end + 1
	}
	return out
}

// randomPattern builds an expression from a grammar of what an agent
// writes and what trips a DFA: literals (ASCII, case pairs, Kelvin sign,
// long s, é, \r), classes, \b \B ^ $ \A \z, repetition, alternation,
// groups, case folding.
func randomPattern(rng *rand.Rand, depth int) string {
	atoms := []string{"a", "b", "A", "B", "_", " ", "0", "9", "é", "k", "K", "\u212a", "s", "ſ", `\r`, `\.`,
		"[ab]", "[^a]", "[A-Z]", "[a-z0-9_]", `\w`, `\W`, `\d`, `\s`, `\S`, "[[:alpha:]]", `\pL`, `\p{Greek}`, ".", "[é-ü]",
		"^", "$", `\b`, `\B`, `\A`, `\z`}
	if depth <= 0 || rng.IntN(3) == 0 {
		return atoms[rng.IntN(len(atoms))]
	}
	sub := func() string { return randomPattern(rng, depth-1) }
	switch rng.IntN(9) {
	case 0:
		return sub() + "|" + sub()
	case 1:
		return "(" + sub() + ")*"
	case 2:
		return "(?:" + sub() + ")+"
	case 3:
		return "(" + sub() + ")?"
	case 4:
		return fmt.Sprintf("(?:%s){%d,%d}", sub(), rng.IntN(3), 2+rng.IntN(3))
	case 5:
		return "(?i:" + sub() + ")"
	case 6:
		return sub() + "*?"
	}
	return sub() + sub()
}

// randomText is lines of the pattern's alphabet with multi-byte
// characters, invalid UTF-8 (a stray continuation byte, a cut sequence,
// 0xFF), CRLF endings and empty lines; with or without a final newline.
func randomText(rng *rand.Rand, n int) []byte {
	pieces := []string{"a", "b", "A", "B", "_", " ", "0", "9", "é", "k", "K", "\u212a", "s", "S", "ſ", "Ω", "日",
		"\r", "\n", "\n", "\r\n", ".", "-", "\x80", "\xc3", "\xe6\x97", "\xff", "ab", "AB_09", "word"}
	var b bytes.Buffer
	for range rng.IntN(n) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.Bytes()
}

// TestDFADifferential: for random expressions over random text, the lines
// (and match positions) found with the DFA are exactly those the
// expression matches line by line, with the sparse byte used or not, and
// with a cache so small that it is emptied and gives up.
func TestDFADifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2026))
	patterns, withDFA := 0, 0
	for patterns < 800 {
		p := randomPattern(rng, 4)
		m, err := compile(Query{Text: p, Regex: true, IgnoreCase: rng.IntN(4) == 0})
		if err != nil {
			continue // an explicit line break, say
		}
		patterns++
		if m.dfa == nil {
			continue
		}
		withDFA++
		d, tiny := newLazyDFA(m.dfa), newLazyDFA(m.dfa)
		tiny.limit = 4
		for range 8 {
			text := randomText(rng, 120)
			want := perLine(m, text)
			for _, c := range []struct {
				name   string
				sparse bool
				d      *lazyDFA
			}{{"dfa", false, d}, {"dfa+sparse", true, d}, {"tiny cache", false, tiny}, {"regexp", false, nil}} {
				if diff := cmp.Diff(want, byMatcher(m, text, c.sparse, c.d)); diff != "" {
					t.Fatalf("%s: %q (ignoreCase %v) on %q (-per line +matcher):\n%s", c.name, p, m.re, text, diff)
				}
			}
		}
	}
	if withDFA < patterns/2 {
		t.Errorf("only %d of %d expressions had a DFA", withDFA, patterns)
	}
}

// TestDFAScanIdentical: a whole scan — hits with their text windows and
// context, counts, the limit on kept hits, lines longer than the region —
// is the same with the DFA as with the expression alone (the engine before
// the DFA).
func TestDFAScanIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	long := strings.Repeat("x", 700) + "AB_09" + strings.Repeat("y", 300)
	for round := range 300 {
		p := randomPattern(rng, 3)
		m, err := compile(Query{Text: p, Regex: true})
		if err != nil || m.dfa == nil {
			continue
		}
		plain := *m
		plain.dfa = nil
		text := randomText(rng, 400)
		if round%10 == 0 {
			text = append(append(text, long...), randomText(rng, 100)...)
		}
		for _, mode := range []mode{modeHits, modeCount, modeFiles} {
			ctxLines, keep := rng.IntN(3), 1+rng.IntN(20)
			got := scanWith(t, m, mode, ctxLines, keep, text)
			want := scanWith(t, &plain, mode, ctxLines, keep, text)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(fileResult{})); diff != "" {
				t.Fatalf("%q mode %d context %d keep %d on %q (-regexp +dfa):\n%s", p, mode, ctxLines, keep, text, diff)
			}
		}
	}
}

func scanWith(t *testing.T, m *matcher, md mode, ctxLines, keep int, text []byte) fileResult {
	t.Helper()
	s := &scanner{m: m, mode: md, context: ctxLines}
	res, _, err := s.scan(context.Background(), bytes.NewReader(text), int64(len(text)), keep)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDFAGivesUp: an expression whose DFA has exponentially many states
// ((a|b)*a(a|b){12}: the thirteenth byte from the end) fills the cache,
// empties it, and gives up when it keeps filling; the answer is still the
// expression's, and the search stays linear.
func TestDFAGivesUp(t *testing.T) {
	m, err := compile(Query{Text: `(a|b)*a(a|b){12}c`, Regex: true})
	if err != nil || m.dfa == nil {
		t.Fatalf("compile: %v (dfa %v)", err, m != nil && m.dfa != nil)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var b bytes.Buffer
	for range 200 {
		for range 2000 {
			b.WriteByte("ab"[rng.IntN(2)])
		}
		if rng.IntN(4) == 0 {
			b.WriteByte('c')
		}
		b.WriteByte('\n')
	}
	text := b.Bytes()
	d := newLazyDFA(m.dfa)
	d.limit = 64
	if diff := cmp.Diff(perLine(m, text), byMatcher(m, text, false, d)); diff != "" {
		t.Fatalf("(-per line +dfa):\n%s", diff)
	}
	if !d.failed {
		t.Errorf("the DFA did not give up (%d states)", len(d.states))
	}
}

// TestDFAShapes: the expressions bench/grep measures, and others an agent
// writes, get a DFA (no literal to look for) and find what the expression
// finds.
func TestDFAShapes(t *testing.T) {
	text := []byte("\treturn ERR_404 // x\nABCD123 and abcd123\nxABCD123 ABCDE1234\n" +
		"  \n\nfoo = bar.Baz(1, 2)\nvar x = 10\n\u00e9t\u00e9 ABCD123\n\xffABCD123\xff\n")
	for _, p := range []string{`\b[A-Z]{4,}[0-9]{3}\b`, `\b[A-Z]{4,}_[0-9]{3}\b`, `^\s*$`, `[a-z]+\s+[a-z]+\(`,
		`[A-Z]\w*\(`, `[a-z]+\s+[a-z]+\(`, `\d+`, `^$`, `(?i)[a-z]+\d{3}`, `\p{L}+`, `[^\x00-\x7f]`} {
		m, err := compile(Query{Text: p, Regex: true})
		if err != nil {
			t.Fatal(err)
		}
		if m.dfa == nil {
			t.Errorf("%q: no DFA", p)
			continue
		}
		if diff := cmp.Diff(perLine(m, text), byMatcher(m, text, false, newLazyDFA(m.dfa))); diff != "" {
			t.Errorf("%q (-per line +dfa):\n%s", p, diff)
		}
	}
}

// FuzzDFA: for any expression and text, the DFA's lines are the
// expression's, line by line.
func FuzzDFA(f *testing.F) {
	f.Add(`\b[A-Z]{4,}[0-9]{3}\b`, "x ABCD123\nABCD1234\n")
	f.Add(`^\s*$`, "a\n \n\r\n")
	f.Add(`(?i)\x{212a}.`, "\u212ax\nkk\n")
	f.Add(`[^a]$`, "a\xff\n\xc3\n")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		m, err := compile(Query{Text: pattern, Regex: true})
		if err != nil || m.dfa == nil {
			return
		}
		want := perLine(m, []byte(text))
		for _, sparse := range []bool{false, true} {
			if diff := cmp.Diff(want, byMatcher(m, []byte(text), sparse, newLazyDFA(m.dfa))); diff != "" {
				t.Fatalf("%q on %q, sparse %v (-per line +dfa):\n%s", pattern, text, sparse, diff)
			}
		}
	})
}

// TestDFAMemoryBounded: states of a large program (\w{300}\d: hundreds of
// instructions in each state) fill the cache by its byte budget, not by
// its count of states; the cache never grows past the budget and the
// answer is the expression's.
func TestDFAMemoryBounded(t *testing.T) {
	m, err := compile(Query{Text: `\w{300}\d`, Regex: true})
	if err != nil || m.dfa == nil {
		t.Fatalf("compile: %v", err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var b bytes.Buffer
	for range 50 {
		for range 1000 + rng.IntN(1000) {
			b.WriteByte("ab1"[rng.IntN(3)])
		}
		b.WriteByte('\n')
	}
	text := b.Bytes()
	d := newLazyDFA(m.dfa)
	biggest := 0
	for pos := 0; pos < len(text); {
		l := lineAround(text, pos, pos)
		d.lineMayMatch(text[l.start:l.end])
		biggest = max(biggest, d.bytes)
		pos = l.end + 1
	}
	if limit := dfaCacheBytes + 4*d.p.nclass + 7*len(m.dfa.prog.Inst) + 64; biggest > limit {
		t.Errorf("the cache grew to %d bytes, over %d", biggest, limit)
	}
	if diff := cmp.Diff(perLine(m, text), byMatcher(m, text, false, newLazyDFA(m.dfa))); diff != "" {
		t.Fatalf("(-per line +dfa):\n%s", diff)
	}
}
