package toolsearch

import (
	"cmp"
	"slices"
	"sync"
)

// Doc is one searchable tool.
type Doc struct {
	Name        string
	Description string
}

// Hit is one ranked match.
type Hit struct {
	Name  string
	Score float64 // rounded to ScoreDecimals places
}

// Result is the outcome of one search.
type Result struct {
	Hits  []Hit    // best first, at most the limit asked for
	Terms []string // the query's distinct terms, sorted
	N     int      // documents in the index when it ran
}

// Index is an in-memory BM25 index over tool names and descriptions. It is
// safe for concurrent use: searches share a read lock, updates take the
// write lock only to swap postings they analysed beforehand.
type Index struct {
	an *Analyzer

	mu       sync.RWMutex
	docs     map[string]*analysed      // name → document
	postings map[string]map[string]int // term → name → tf
	totalLen int                       // sum of document lengths
}

// analysed is a document's term frequencies and length.
type analysed struct {
	name   string
	tf     map[string]int
	length int
}

// NewIndex returns an empty index that analyses with an.
func NewIndex(an *Analyzer) *Index {
	return &Index{an: an, docs: map[string]*analysed{}, postings: map[string]map[string]int{}}
}

// Len is the number of indexed documents.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.docs)
}

// Apply removes the named documents and adds (or replaces) the given ones,
// as one change: a concurrent search sees all of it or none.
func (ix *Index) Apply(upsert []Doc, remove []string) {
	docs := make([]*analysed, len(upsert))
	for i, d := range upsert {
		docs[i] = ix.analyse(d)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, name := range remove {
		ix.drop(name)
	}
	for _, d := range docs {
		ix.drop(d.name)
		ix.docs[d.name] = d
		ix.totalLen += d.length
		for term, tf := range d.tf {
			p := ix.postings[term]
			if p == nil {
				p = map[string]int{}
				ix.postings[term] = p
			}
			p[d.name] = tf
		}
	}
}

// analyse builds a document: the name's tokens NameWeight times, then the
// description's.
func (ix *Index) analyse(d Doc) *analysed {
	name, desc := ix.an.Terms(d.Name), ix.an.Terms(d.Description)
	tf := make(map[string]int, len(name)+len(desc))
	for _, t := range name {
		tf[t] += NameWeight
	}
	for _, t := range desc {
		tf[t]++
	}
	return &analysed{name: d.Name, tf: tf, length: NameWeight*len(name) + len(desc)}
}

// drop removes a document; the caller holds the write lock.
func (ix *Index) drop(name string) {
	d, ok := ix.docs[name]
	if !ok {
		return
	}
	delete(ix.docs, name)
	ix.totalLen -= d.length
	for term := range d.tf {
		p := ix.postings[term]
		delete(p, name)
		if len(p) == 0 {
			delete(ix.postings, term)
		}
	}
}

// Search ranks the documents containing at least one of the query's terms
// and returns the best limit of them.
func (ix *Index) Search(query string, limit int) Result {
	res := Result{Terms: distinct(ix.an.Terms(query))}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	res.N = len(ix.docs)
	if res.N == 0 || len(res.Terms) == 0 || limit < 1 {
		return res
	}
	avgdl := float64(ix.totalLen) / float64(res.N)
	scores := map[string]float64{}
	// Terms in sorted order: every implementation adds a document's
	// contributions in the same order, so equal documents tie exactly.
	for _, term := range res.Terms {
		p := ix.postings[term]
		if len(p) == 0 {
			continue
		}
		idf := IDF(res.N, len(p))
		for name, tf := range p {
			scores[name] += TermScore(idf, tf, ix.docs[name].length, avgdl)
		}
	}
	res.Hits = rank(scores, limit)
	return res
}

// rank rounds the scores and returns the best limit, ties by name.
func rank(scores map[string]float64, limit int) []Hit {
	hits := make([]Hit, 0, len(scores))
	for name, s := range scores {
		hits = append(hits, Hit{Name: name, Score: Round(s)})
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return hits[:min(limit, len(hits))]
}

// distinct returns the sorted distinct terms: a repeated query term counts
// once.
func distinct(terms []string) []string {
	slices.Sort(terms)
	return slices.Compact(terms)
}
