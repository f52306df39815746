package codesearch

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// matchingLines runs m over text the way the scanner does: one region,
// line by line from each match; it returns the 1-based numbers of the
// matching lines.
func matchingLines(m *matcher, text []byte) []int {
	return matchingLinesSparse(m, text, m.sparseIn(text))
}

// matchingLinesSparse is matchingLines with the sparse byte used or not.
func matchingLinesSparse(m *matcher, text []byte, sparse bool) []int {
	var d *lazyDFA
	if m.dfa != nil {
		d = newLazyDFA(m.dfa)
	}
	return matchingLinesWith(m, text, sparse, d)
}

// matchingLinesWith is matchingLines with the sparse byte used or not and
// the DFA given (nil: the expression alone).
func matchingLinesWith(m *matcher, text []byte, sparse bool, d *lazyDFA) []int {
	var out []int
	for _, h := range byMatcher(m, text, sparse, d) {
		out = append(out, h.Line)
	}
	return out
}

// oracle is the meaning of a query: the lines (without "\n" and a final
// "\r") that Go's regexp, or a plain substring test, matches on their own.
func oracle(t *testing.T, q Query, text []byte) []int {
	t.Helper()
	pattern := q.Text
	if !q.Regex {
		pattern = regexp.QuoteMeta(pattern)
	}
	if q.IgnoreCase {
		pattern = "(?i)" + pattern
	}
	re := regexp.MustCompile(pattern)
	var out []int
	if len(text) == 0 {
		return nil // an empty file has no lines
	}
	lines := bytes.Split(text, newline)
	for i, l := range lines {
		if i == len(lines)-1 && len(l) == 0 && len(text) > 0 {
			break // the empty "line" after a final newline
		}
		if re.Match(bytes.TrimSuffix(l, []byte{'\r'})) {
			out = append(out, i+1)
		}
	}
	return out
}

// TestMatcherAgreesWithLineByLine: whatever prefilter the matcher picks
// (exact, rare byte, case-folded, several literals, none), the lines it
// finds over a whole region are those the expression matches line by
// line.
func TestMatcherAgreesWithLineByLine(t *testing.T) {
	queries := []Query{
		{Text: "ab"}, {Text: "a b"}, {Text: "Ks"}, {Text: "ab", IgnoreCase: true}, {Text: "ks", IgnoreCase: true},
		{Text: "sK_", IgnoreCase: true}, {Text: "_"}, {Text: "ba_ab"},
		{Text: `a\sb`, Regex: true}, {Text: `^ab`, Regex: true}, {Text: `ab$`, Regex: true}, {Text: `\Aa`, Regex: true},
		{Text: `b\z`, Regex: true}, {Text: `a.b`, Regex: true}, {Text: `(?s)a.b`, Regex: true}, {Text: `a[^x]b`, Regex: true},
		{Text: `ab|ks`, Regex: true}, {Text: `(ab|ba)_`, Regex: true}, {Text: `(?i)ab|KS`, Regex: true},
		{Text: `\bab\b`, Regex: true}, {Text: `a+b+`, Regex: true}, {Text: `(ab){2,}`, Regex: true}, {Text: `x*`, Regex: true},
		{Text: `^$`, Regex: true}, {Text: `^`, Regex: true}, {Text: `b a`, Regex: true, IgnoreCase: true}, {Text: `[ab]{3}`, Regex: true},
		{Text: `[ab]+_[AB]`, Regex: true}, {Text: `\b[A-Z]{2,}_`, Regex: true}, {Text: `k\s*[ab]`, Regex: true},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abAB kKsS_\n\n\r\u212a\u017f"
	runes := []rune(alphabet)
	for round := range 300 {
		var b strings.Builder
		for range rng.IntN(200) {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		text := []byte(b.String())
		for _, q := range queries {
			m, err := compile(q)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			for _, sparse := range []bool{false, true} {
				if diff := cmp.Diff(oracle(t, q, text), matchingLinesSparse(m, text, sparse)); diff != "" {
					t.Fatalf("round %d, query %+v on %q, sparse %v (-line by line +matcher):\n%s", round, q, text, sparse, diff)
				}
			}
		}
	}
}

func TestCompileRefusals(t *testing.T) {
	cases := []struct {
		q    Query
		err  error
		text string
	}{
		{Query{}, ErrEmptyQuery, "query is empty"},
		{Query{Text: "a\nb"}, ErrBadQuery, "line break"},
		{Query{Text: "a\rb"}, ErrBadQuery, "line break"},
		{Query{Text: strings.Repeat("x", MaxQueryBytes+1)}, ErrBadQuery, "over the 4096-byte limit"},
		{Query{Text: "a(?=b)", Regex: true}, ErrBadRegex, "invalid or unsupported Perl syntax: `(?=`; grep takes RE2 syntax"},
		{Query{Text: `(\w)\1`, Regex: true}, ErrBadRegex, "invalid escape sequence: `\\1`"},
		{Query{Text: "a[", Regex: true}, ErrBadRegex, "missing closing ]"},
		{Query{Text: `a\nb`, Regex: true}, ErrBadRegex, "matches a line break"},
		{Query{Text: `[\n]`, Regex: true}, ErrBadRegex, "matches a line break"},
	}
	for _, c := range cases {
		_, err := compile(c.q)
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("compile(%+v) = %v; want %v containing %q", c.q, err, c.err, c.text)
		}
	}
}

// TestPrefilterChoice: the literal searched for is the one that narrows
// most, and an expression without a usable one is run as a whole.
func TestPrefilterChoice(t *testing.T) {
	cases := []struct {
		q    Query
		want string // %T and needles of the finder, or "none"
	}{
		{Query{Text: "parseConfig"}, "exact parseConfig"},
		{Query{Text: `func\s+\w+Handler\(`, Regex: true}, "exact Handler("},
		{Query{Text: `\(\w+\)`, Regex: true}, "none sparse ("},
		{Query{Text: `TODO|FIXME`, Regex: true}, "multi [exact TODO exact FIXME]"},
		{Query{Text: `(?i)parseconfig`, Regex: true}, "fold econfig"},
		{Query{Text: `parseConfig`, IgnoreCase: true}, "fold econfig"},
		{Query{Text: `Config`, IgnoreCase: true}, "fold config"},
		{Query{Text: `[A-Z]{4}_[0-9]{3}`, Regex: true}, "none sparse _"},
		{Query{Text: `[A-Z]{4}[0-9]{3}`, Regex: true}, "none"},
		{Query{Text: `a|[0-9]+`, Regex: true}, "none"},
		{Query{Text: `x(ab)+y`, Regex: true}, "exact ab sparse x"},
		{Query{Text: `"#`, Regex: true}, "exact \"#"},
	}
	for _, c := range cases {
		m, err := compile(c.q)
		if err != nil {
			t.Fatal(err)
		}
		got := describe(m.find)
		if m.sparse != nil {
			got += " sparse " + string(m.sparse.needle)
		}
		if got != c.want {
			t.Errorf("%+v: prefilter %s, want %s", c.q, got, c.want)
		}
	}
}

func describe(f finder) string {
	switch f := f.(type) {
	case nil:
		return "none"
	case exactFinder:
		return "exact " + string(f.needle)
	case foldFinder:
		return "fold " + string(f.needle)
	case multiFinder:
		var parts []string
		for _, s := range f {
			parts = append(parts, describe(s))
		}
		return "multi [" + strings.Join(parts, " ") + "]"
	}
	return "?"
}

// TestRegexLinearTime: (a+)+$ on a long line, the classic catastrophic
// backtracking case, is linear for RE2.
func TestRegexLinearTime(t *testing.T) {
	m, err := compile(Query{Text: `(a+)+$`, Regex: true})
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("a", 1<<20) + "!")
	if got := matchingLines(m, line); len(got) != 0 {
		t.Fatalf("matched %v", got)
	}
}
