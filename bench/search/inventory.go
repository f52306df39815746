package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"steerable.dev/sidecar/internal/toolsearch"
)

// syllables build a deterministic vocabulary of a few hundred pseudo-words;
// words are drawn with a Zipf distribution, as in real descriptions.
var syllables = []string{"ka", "lo", "mi", "ta", "ren", "sul", "vor", "dex", "pli", "qua", "zen", "bor", "fin", "gra", "hol", "jet"}

var verbs = []string{"get", "list", "create", "update", "delete", "search", "send", "sync", "export", "import", "archive", "run"}

func vocabulary(n int) []string {
	words := make([]string, 0, n)
	for i := 0; len(words) < n; i++ {
		a, b, c := syllables[i%16], syllables[(i/16)%16], syllables[(i/256)%16]
		words = append(words, a+b+c)
	}
	return words
}

// inventory returns n deferred tools: snake_case or camelCase names from a
// verb and two nouns, and 8–24-word descriptions.
func inventory(n int, seed uint64) []toolsearch.Doc {
	rng := rand.New(rand.NewPCG(seed, 1))
	vocab := vocabulary(600)
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	docs := make([]toolsearch.Doc, n)
	for i := range docs {
		v, a, b := verbs[rng.IntN(len(verbs))], vocab[zipf.Uint64()], vocab[zipf.Uint64()]
		name := fmt.Sprintf("%s_%s_%s_%d", v, a, b, i)
		if i%3 == 0 {
			name = fmt.Sprintf("%s%s%s%d", v, capitalize(a), capitalize(b), i)
		}
		words := make([]string, 8+rng.IntN(17))
		for j := range words {
			words[j] = vocab[zipf.Uint64()]
		}
		docs[i] = toolsearch.Doc{Name: name, Description: strings.Join(words, " ") + "."}
	}
	return docs
}

// queries returns k queries of one to three vocabulary words; one in ten is
// off-vocabulary.
func queries(k int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 2))
	vocab := vocabulary(600)
	out := make([]string, k)
	for i := range out {
		if i%10 == 9 {
			out[i] = "unmatched zzzword"
			continue
		}
		w := make([]string, 1+rng.IntN(3))
		for j := range w {
			w[j] = vocab[rng.IntN(200)]
		}
		out[i] = strings.Join(w, " ")
	}
	return out
}

func capitalize(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
