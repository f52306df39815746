// Package refbm25 is an independent, deliberately plain implementation of
// tool_search's ranking, written from SPEC §4.4 and the rules in
// tool_contract.json "toolSearch" without bleve and without sharing code
// with package search. Tests use it as the oracle (contract scores, random
// inventories) and the benchmark as the reference: a brute-force scan over
// pre-tokenised documents, the floor a search over an index must beat.
package refbm25

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Doc is one deferred tool.
type Doc struct {
	Name        string
	Description string
}

// Hit is one ranked match.
type Hit struct {
	Name  string
	Score float64
}

// Tokenize applies the contract's tokenisation rules: NFKC; runs of
// letters, marks and decimal digits; each Han, Hiragana or Katakana
// character alone; camelCase splits with digits staying in their run, a
// piece that splits also kept whole before its parts; simple lowercase
// mapping; final sigma written as σ.
func Tokenize(text string) []string {
	var out []string
	for _, piece := range pieces([]rune(norm.NFKC.String(text))) {
		words := camelWords(piece)
		if len(words) > 1 {
			out = append(out, lower(piece))
		}
		for _, w := range words {
			out = append(out, lower(w))
		}
	}
	return out
}

// pieces cuts text at every character that is not a letter, mark or
// decimal digit, and makes each Han, Hiragana or Katakana character a piece
// of its own. Pieces are subslices of runes.
func pieces(runes []rune) [][]rune {
	var out [][]rune
	start := 0
	for i, r := range runes {
		separator := !(unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r))
		alone := !separator && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
		if !separator && !alone {
			continue // inside a piece
		}
		if i > start {
			out = append(out, runes[start:i])
		}
		if alone {
			out = append(out, runes[i:i+1])
		}
		start = i + 1
	}
	if len(runes) > start {
		out = append(out, runes[start:])
	}
	return out
}

// camelWords splits one piece before every character that starts a word.
func camelWords(piece []rune) [][]rune {
	var out [][]rune
	from := 0
	for i := 1; i < len(piece); i++ {
		if startsWord(piece[i-1], piece[i], piece, i) {
			out = append(out, piece[from:i])
			from = i
		}
	}
	return append(out, piece[from:])
}

// startsWord: an uppercase letter after a lowercase letter or a digit, or
// an uppercase letter between an uppercase and a lowercase one.
func startsWord(prev, r rune, runes []rune, i int) bool {
	if !unicode.IsUpper(r) {
		return false
	}
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	return unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1])
}

func lower(tok []rune) string {
	var b strings.Builder
	for _, r := range tok {
		r = unicode.ToLower(r)
		if r == 'ς' {
			r = 'σ'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Corpus is a set of tokenised documents.
type Corpus struct {
	docs  []doc
	df    map[string]int
	avgdl float64
}

type doc struct {
	name string
	tf   map[string]int
	dl   int
}

// New tokenises docs: each document is the name's tokens twice plus the
// description's.
func New(docs []Doc) *Corpus {
	c := &Corpus{df: map[string]int{}}
	total := 0
	for _, d := range docs {
		terms := append(append(Tokenize(d.Name), Tokenize(d.Name)...), Tokenize(d.Description)...)
		tf := map[string]int{}
		for _, t := range terms {
			tf[t]++
		}
		for t := range tf {
			c.df[t]++
		}
		c.docs = append(c.docs, doc{name: d.Name, tf: tf, dl: len(terms)})
		total += len(terms)
	}
	if len(docs) > 0 {
		c.avgdl = float64(total) / float64(len(docs))
	}
	return c
}

// Rank scores every document against the query and returns the best limit:
// score rounded to six decimals, descending, ties by name; documents without
// any query term are left out.
func (c *Corpus) Rank(query string, limit int) []Hit {
	const k1, b = 1.2, 0.75
	terms := Tokenize(query)
	sort.Strings(terms)
	n := float64(len(c.docs))
	var hits []Hit
	for _, d := range c.docs {
		score, matched := 0.0, false
		for i, t := range terms {
			if i > 0 && terms[i-1] == t {
				continue // a repeated query term counts once
			}
			tf := float64(d.tf[t])
			if tf == 0 {
				continue
			}
			df := float64(c.df[t])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			score += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(d.dl)/c.avgdl))
			matched = true
		}
		if matched {
			hits = append(hits, Hit{Name: d.name, Score: math.Round(score*1e6) / 1e6})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Name < hits[j].Name
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}
