package toolsearch

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// identifierFilter splits identifier-shaped tokens (SPEC §4.4):
//
//   - each Han, Hiragana or Katakana character (by Unicode script) is a token
//     of its own, since those scripts do not separate words with spaces;
//   - the rest splits before an uppercase letter (Lu) that follows a
//     lowercase letter (Ll) or a decimal digit (createPull → create|Pull,
//     v2Client → v2|Client), and before an uppercase letter that follows an
//     uppercase letter and precedes a lowercase one (HTTPServer → HTTP|Server);
//   - a piece that splits is also kept whole, before its parts, since a
//     camelCase brand is one word elsewhere: GitHub → GitHub|Git|Hub, so the
//     query "GitHub" finds mcp__github__* tools and "github" finds GitHub.
//
// Digits never start a split, so v2, 2fa, base64 and HTTP2 stay whole —
// bleve's stock camelCase filter would split them (v2 → v, 2).
type identifierFilter struct{}

func (identifierFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input))
	for _, t := range input {
		if plainLower(t.Term) {
			t.Position = len(out) + 1
			out = append(out, t)
			continue
		}
		runes := []rune(string(t.Term))
		for _, piece := range splitIdentifier(runes) {
			out = append(out, &analysis.Token{
				Term:     []byte(string(piece)),
				Start:    t.Start,
				End:      t.End,
				Position: len(out) + 1,
				Type:     t.Type,
			})
		}
	}
	return out
}

// splitIdentifier splits one run of letters, marks and digits into tokens by
// the rules of identifierFilter.
func splitIdentifier(run []rune) [][]rune {
	var out [][]rune
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, splitCamel(run[start:end])...)
		}
	}
	for i, r := range run {
		if isCJK(r) {
			flush(i)
			out = append(out, run[i:i+1])
			start = i + 1
		}
	}
	flush(len(run))
	return out
}

// plainLower reports whether term is ASCII without uppercase letters: the
// common case, which has nothing to split.
func plainLower(term []byte) bool {
	for _, c := range term {
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// splitCamel splits a run without CJK characters at camelCase boundaries;
// when it splits, the whole run comes first.
func splitCamel(run []rune) [][]rune {
	out := [][]rune{run}
	start := 0
	for i := 1; i < len(run); i++ {
		if camelBoundary(run, i) {
			out = append(out, run[start:i])
			start = i
		}
	}
	if start == 0 {
		return out // no boundary: the run alone
	}
	return append(out, run[start:])
}

// camelBoundary reports whether a token starts at run[i].
func camelBoundary(run []rune, i int) bool {
	if !unicode.IsUpper(run[i]) {
		return false
	}
	prev := run[i-1]
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	return unicode.IsUpper(prev) && i+1 < len(run) && unicode.IsLower(run[i+1])
}

var _ analysis.TokenFilter = identifierFilter{}
