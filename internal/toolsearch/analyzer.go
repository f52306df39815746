package toolsearch

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"golang.org/x/text/unicode/norm"
)

// The chain is assembled directly, not through bleve's registry by name: the
// registry package imports bleve's search and geo packages, whose init
// functions cost every start-up 0.15 ms for an index this package never
// builds. bleve's custom analyzer would build this same DefaultAnalyzer.
func chain() analysis.Analyzer {
	return &analysis.DefaultAnalyzer{
		CharFilters:  []analysis.CharFilter{nfkcFilter{}},
		Tokenizer:    runTokenizer{},
		TokenFilters: []analysis.TokenFilter{identifierFilter{}, lowerFold{}},
	}
}

// Analyzer turns text into search terms. It is safe for concurrent use.
type Analyzer struct {
	a analysis.Analyzer
}

// NewAnalyzer builds the chain. The error is always nil; it stays for the
// callers, which a configurable chain would need.
func NewAnalyzer() (*Analyzer, error) {
	return &Analyzer{a: chain()}, nil
}

// Terms returns text's terms in order, repeats included.
func (an *Analyzer) Terms(text string) []string {
	toks := an.a.Analyze([]byte(text))
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = string(t.Term)
	}
	return out
}

// isTokenRune is the token class: letters, marks and decimal digits.
func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r))
}

// nfkcFilter normalises to NFKC and blanks every character outside the
// token class (invalid UTF-8 and U+FFFD included) with as many spaces as it
// had bytes. It copies only when it changes something.
type nfkcFilter struct{}

func (nfkcFilter) Filter(input []byte) []byte {
	out := norm.NFKC.Bytes(input) // returns input itself when already NFKC
	copied := len(out) == 0 || len(input) == 0 || &out[0] != &input[0]
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRune(out[i:])
		if !isTokenRune(r) && r != ' ' {
			if !copied {
				out, copied = bytes.Clone(out), true
			}
			for j := range size {
				out[i+j] = ' '
			}
		}
		i += size
	}
	return out
}

// runTokenizer emits the runs of token-class characters. (bleve's
// character tokenizer does the same but allocates room for 1,024 tokens
// per call, which dominated indexing time.)
type runTokenizer struct{}

func (runTokenizer) Tokenize(input []byte) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input)/6+1)
	start := -1
	for i := 0; i <= len(input); {
		r, size := utf8.RuneError, 1
		if i < len(input) {
			r, size = utf8.DecodeRune(input[i:])
		}
		switch {
		case isTokenRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			out = append(out, &analysis.Token{Term: input[start:i], Start: start, End: i, Position: len(out) + 1, Type: analysis.AlphaNumeric})
			start = -1
		}
		i += size
	}
	return out
}

// lowerFold lowercases each rune with the simple (one-to-one) mapping and
// writes final sigma ς as σ, so that ΟΔΟΣ, οδος and οδοσ are one term.
// (bleve's to_lower rewrites in place and, after a rune whose lowercase is
// shorter in UTF-8 — İ, ẞ — no longer moves the runes that follow: "İ0"
// became "i\xb0". It also writes a final Σ as ς, which this filter would
// undo anyway.)
type lowerFold struct{}

func (lowerFold) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		switch {
		case plainLower(t.Term):
		case isASCII(t.Term):
			for i, c := range t.Term { // same length: in place
				if 'A' <= c && c <= 'Z' {
					t.Term[i] = c + 'a' - 'A'
				}
			}
		default:
			t.Term = lowerRunes(t.Term)
		}
	}
	return input
}

// lowerRunes is the general case, into a new slice: a lowercase rune may be
// shorter (İ → i) or longer (Ⱥ → ⱥ) than the original. The char filter has
// already replaced invalid UTF-8.
func lowerRunes(term []byte) []byte {
	out := make([]byte, 0, len(term)+utf8.UTFMax)
	for _, r := range string(term) {
		r = unicode.ToLower(r)
		if r == 'ς' {
			r = 'σ'
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

func isASCII(term []byte) bool {
	for _, c := range term {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

var (
	_ analysis.CharFilter  = nfkcFilter{}
	_ analysis.Tokenizer   = runTokenizer{}
	_ analysis.TokenFilter = lowerFold{}
)
