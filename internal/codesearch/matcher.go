package codesearch

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Errors of a query, tested with errors.Is. Their messages say what to do.
var (
	ErrEmptyQuery = errors.New("query is empty")
	ErrBadQuery   = errors.New("invalid query")
	ErrBadRegex   = errors.New("invalid regular expression")
)

// MaxQueryBytes bounds a query: a search term, not a document.
const MaxQueryBytes = 4096

// Query is what grep looks for.
type Query struct {
	Text       string
	Regex      bool // RE2 syntax (Go's regexp); else Text is literal
	IgnoreCase bool // Unicode simple case folding
}

// matcher finds matching lines. Matches never span lines: a literal with
// a line break is refused, and a regular expression is rewritten so that
// nothing in it matches "\n" (ripgrep does the same), which lets one
// search run over many lines at once with the same answer as line by line.
type matcher struct {
	find  finder         // candidate positions; nil: run re over the region
	exact bool           // a candidate is a match: no regex check
	re    *regexp.Regexp // the line-local expression; nil when exact
	// sparse, when find is nil, finds a byte every match holds; it is
	// used in a region where few lines hold it (see sparseIn).
	sparse *exactFinder
	// dfa, when find is nil, finds the lines that can match (dfa.go)
	// faster than the regexp's NFA; nil for a program too large.
	dfa *dfaProg
}

// compile builds the matcher for q.
func compile(q Query) (*matcher, error) {
	switch {
	case q.Text == "":
		return nil, fmt.Errorf("%w: pass the text (or regular expression) to search for", ErrEmptyQuery)
	case len(q.Text) > MaxQueryBytes:
		return nil, fmt.Errorf("%w: the query is %d bytes, over the %d-byte limit; search for a shorter, distinctive part of the text", ErrBadQuery, len(q.Text), MaxQueryBytes)
	case !q.Regex && strings.ContainsAny(q.Text, "\r\n"):
		return nil, fmt.Errorf("%w: the query holds a line break, but grep matches within one line; search for one line of the text", ErrBadQuery)
	case !q.Regex && !q.IgnoreCase:
		return &matcher{find: newExactFinder([]byte(q.Text)), exact: true}, nil
	}
	pattern := q.Text
	if !q.Regex {
		pattern = regexp.QuoteMeta(q.Text)
	}
	flags := syntax.Perl
	if q.IgnoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v; grep takes RE2 syntax (Go regexp: no lookaround, no backreferences), or pass isRegex:false to search for the text as written", ErrBadRegex, q.Text, err)
	}
	if err := lineLocal(tree); err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrBadRegex, q.Text, err)
	}
	tree = tree.Simplify()
	re, err := regexp.Compile(tree.String())
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrBadRegex, q.Text, err)
	}
	m := &matcher{re: re}
	needs := required(tree)
	if b, ok := rarestByte(needs); ok {
		m.sparse = &exactFinder{needle: []byte{b}, anchor: -1}
	}
	if n, ok := bestNeed(needs); ok {
		m.find = n.finder()
		m.exact = !q.Regex && len(n) == 1 && n[0].fold && len(n[0].s) == len(q.Text) && isASCII(q.Text)
		if m.exact {
			m.re = nil
		}
	}
	if m.find == nil {
		m.dfa = newDFAProg(re.String())
	}
	return m, nil
}

// lineLocal rewrites tree in place so that no match can contain "\n": "."
// and classes lose "\n", and ^ $ \A \z become line anchors ($ also before
// a "\r\n", so CRLF files behave). An explicit "\n" is refused.
func lineLocal(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return errors.New(`it matches a line break ("\n"), but grep matches within one line`)
			}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		re.Rune = withoutNewline(re.Rune) // a class left empty matches nothing, as it should
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText, syntax.OpEndLine:
		*re = syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
			{Op: syntax.OpQuest, Sub: []*syntax.Regexp{{Op: syntax.OpLiteral, Rune: []rune{'\r'}}}},
			{Op: syntax.OpEndLine},
		}}
		return nil
	}
	for _, sub := range re.Sub {
		if err := lineLocal(sub); err != nil {
			return err
		}
	}
	return nil
}

// withoutNewline removes '\n' from a class given as sorted range pairs.
func withoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo > '\n' || hi < '\n' {
			out = append(out, lo, hi)
			continue
		}
		if lo < '\n' {
			out = append(out, lo, '\n'-1)
		}
		if hi > '\n' {
			out = append(out, '\n'+1, hi)
		}
	}
	return out
}

// match is one matching line: [start, end) excludes the "\n"; at is where
// the match begins.
type match struct {
	start, end, at int
}

// sparseIn reports whether the sparse byte is worth searching for in hay:
// when at most a quarter of its lines can hold it, running the expression
// on those lines alone beats Go's NFA over all of them (it costs two
// SIMD counts of the region to find out).
func (m *matcher) sparseIn(hay []byte) bool {
	return m.find == nil && m.sparse != nil && 4*bytes.Count(hay, m.sparse.needle) <= bytes.Count(hay, newline)
}

// next finds the first matching line in hay at or after from, which is a
// line start. hay ends at a line end (or the end of the file). sparse
// says to look for the sparse byte first (sparseIn); d is the worker's
// DFA (nil without one).
func (m *matcher) next(hay []byte, from int, st *findState, sparse bool, d *lazyDFA) (match, bool) {
	var f finder = m.find
	if f == nil && sparse {
		f = *m.sparse
	}
	if f == nil {
		if d != nil {
			return m.nextByDFA(hay, from, d)
		}
		return m.nextByRegex(hay, from)
	}
	for from < len(hay) {
		c := f.next(hay, from, st)
		if c < 0 {
			return match{}, false
		}
		l := lineAround(hay, from, c)
		if m.exact {
			return l, true
		}
		if m.confirm(hay, &l, d) {
			return l, true
		}
		from = l.end + 1
	}
	return match{}, false
}

// confirm runs the expression on the line l of hay, setting where the
// match begins; the DFA, when there is one, rules out most lines first.
func (m *matcher) confirm(hay []byte, l *match, d *lazyDFA) bool {
	line := hay[l.start:l.end]
	if d != nil && !d.lineMayMatch(line) {
		return false
	}
	loc := m.re.FindIndex(line)
	if loc == nil {
		return false
	}
	l.at = l.start + loc[0]
	return true
}

// nextByDFA finds the lines that can match with the DFA and confirms each
// with the expression; where the DFA gives up, the expression searches on.
func (m *matcher) nextByDFA(hay []byte, from int, d *lazyDFA) (match, bool) {
	for from < len(hay) {
		at, res := d.find(hay, from)
		switch res {
		case dfaNone:
			return match{}, false
		case dfaGaveUp:
			return m.nextByRegex(hay, lineAround(hay, from, at).start)
		}
		l := lineAround(hay, from, at)
		if loc := m.re.FindIndex(hay[l.start:l.end]); loc != nil {
			l.at = l.start + loc[0]
			return l, true
		}
		from = l.end + 1
	}
	return match{}, false
}

// nextByRegex runs the expression over the rest of the region: matches
// are line-local, so the first one found lies on the first matching line.
func (m *matcher) nextByRegex(hay []byte, from int) (match, bool) {
	loc := m.re.FindIndex(hay[from:])
	if loc == nil {
		return match{}, false
	}
	at := from + loc[0]
	if at == len(hay) && at > from && hay[at-1] == '\n' {
		return match{}, false // an empty match after the last line
	}
	return lineAround(hay, from, at), true
}

// lineAround is the line of hay holding position at (from ≤ at is a line
// start at or before it).
func lineAround(hay []byte, from, at int) match {
	start := from + bytes.LastIndexByte(hay[from:at], '\n') + 1
	end := len(hay)
	if i := bytes.IndexByte(hay[at:], '\n'); i >= 0 {
		end = at + i
	}
	return match{start: start, end: end, at: at}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
