package search

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/character"
	"github.com/blevesearch/bleve/v2/registry"
	"golang.org/x/text/unicode/norm"
)

// Names of the analysis components in bleve's registry.
const (
	AnalyzerName  = "steerable_tool_search"
	charFilter    = "steerable_nfkc"
	tokenizerName = "steerable_runs"
	identifier    = "steerable_identifier"
	sigmaFilter   = "steerable_sigma"
)

// bleve's registry is filled by its packages' init functions; ours join it
// the same way, so a bleve index mapping can name the analyzer too.
func init() {
	must(registry.RegisterCharFilter(charFilter, func(map[string]any, *registry.Cache) (analysis.CharFilter, error) {
		return nfkcFilter{}, nil
	}))
	must(registry.RegisterTokenizer(tokenizerName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return character.NewCharacterTokenizer(isTokenRune), nil
	}))
	must(registry.RegisterTokenFilter(identifier, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return identifierFilter{}, nil
	}))
	must(registry.RegisterTokenFilter(sigmaFilter, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return sigmaFold{}, nil
	}))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// chain is the custom analyzer's definition.
var chain = map[string]any{
	"type":          custom.Name,
	"char_filters":  []string{charFilter},
	"tokenizer":     tokenizerName,
	"token_filters": []string{identifier, lowercase.Name, sigmaFilter},
}

// Analyzer turns text into search terms. It is safe for concurrent use.
type Analyzer struct {
	a analysis.Analyzer
}

// NewAnalyzer builds the chain through bleve's registry.
func NewAnalyzer() (*Analyzer, error) {
	a, err := registry.NewCache().DefineAnalyzer(AnalyzerName, chain)
	if err != nil {
		return nil, fmt.Errorf("tool_search analyzer: %w", err)
	}
	return &Analyzer{a: a}, nil
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

// isTokenRune is the tokenizer's class: letters, marks and decimal digits.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)
}

// nfkcFilter normalises to NFKC and turns every character outside the token
// class into a space. The space also replaces invalid UTF-8 and U+FFFD,
// where bleve's character tokenizer would otherwise stop reading.
type nfkcFilter struct{}

func (nfkcFilter) Filter(input []byte) []byte {
	in := norm.NFKC.Bytes(input)
	out := in[:0:0]
	for len(in) > 0 {
		r, size := utf8.DecodeRune(in)
		if r == utf8.RuneError || !isTokenRune(r) {
			out = append(out, ' ')
		} else {
			out = append(out, in[:size]...)
		}
		in = in[size:]
	}
	return out
}

// sigmaFold writes final sigma as σ after lowercasing: bleve's to_lower
// turns a word-final Σ into ς, and a query typed in lowercase may use
// either letter.
type sigmaFold struct{}

func (sigmaFold) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if bytes.ContainsRune(t.Term, 'ς') {
			t.Term = bytes.ReplaceAll(t.Term, []byte("ς"), []byte("σ"))
		}
	}
	return input
}

var (
	_ analysis.CharFilter  = nfkcFilter{}
	_ analysis.TokenFilter = sigmaFold{}
)
