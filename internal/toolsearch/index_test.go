package toolsearch

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"steerable.dev/sidecar/internal/toolsearch/refbm25"
)

var testDocs = []Doc{
	{"create_issue", "Open a new issue in a GitHub repository."},
	{"list_issues", "List the open issues of a repository."},
	{"close_issue", "Close an issue."},
	{"send_email", "Send an e-mail message through SMTP."},
	{"create_event", "Create a calendar event with attendees."},
}

func names(hits []Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Name)
	}
	return out
}

func refHits(docs []Doc, query string, limit int) []Hit {
	rd := make([]refbm25.Doc, len(docs))
	for i, d := range docs {
		rd[i] = refbm25.Doc{Name: d.Name, Description: d.Description}
	}
	var out []Hit
	for _, h := range refbm25.New(rd).Rank(query, limit) {
		out = append(out, Hit{Name: h.Name, Score: h.Score})
	}
	return out
}

func TestSearchRanksAndFloors(t *testing.T) {
	ix := NewIndex(newTestAnalyzer(t))
	ix.Apply(testDocs, nil)
	tests := []struct {
		query string
		limit int
		want  []string
	}{
		{"issue", 8, []string{"close_issue", "create_issue"}},   // "issue" only; list_issues has "issues"
		{"create", 8, []string{"create_event", "create_issue"}}, // equal stats tie by name
		{"issue issue ISSUE", 8, []string{"close_issue", "create_issue"}},
		{"email smtp", 8, []string{"send_email"}},
		{"kubernetes", 8, []string{}}, // off-vocabulary: empty, not irrelevant tools
		{"create", 1, []string{"create_event"}},
		{"!!!", 8, []string{}},
	}
	for _, tc := range tests {
		res := ix.Search(tc.query, tc.limit)
		if diff := cmp.Diff(tc.want, names(res.Hits)); diff != "" {
			t.Errorf("Search(%q, %d) (-want +got):\n%s", tc.query, tc.limit, diff)
		}
		if diff := cmp.Diff(refHits(testDocs, tc.query, tc.limit), res.Hits, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Search(%q) differs from the reference (-ref +index):\n%s", tc.query, diff)
		}
		if res.N != len(testDocs) {
			t.Errorf("N = %d, want %d", res.N, len(testDocs))
		}
	}
}

func TestSearchRepeatedTermCountsOnce(t *testing.T) {
	ix := NewIndex(newTestAnalyzer(t))
	ix.Apply(testDocs, nil)
	once, thrice := ix.Search("calendar", 8), ix.Search("calendar calendar Calendar", 8)
	if diff := cmp.Diff(once.Hits, thrice.Hits); diff != "" || len(once.Hits) != 1 {
		t.Errorf("repeated term changed the result (-once +thrice):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"calendar"}, thrice.Terms); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
}

func TestApplyIncremental(t *testing.T) {
	ix := NewIndex(newTestAnalyzer(t))
	ix.Apply(testDocs[:2], nil)
	if got := names(ix.Search("email", 8).Hits); len(got) != 0 {
		t.Fatalf("email before send_email was added: %v", got)
	}
	ix.Apply(testDocs[2:], nil) // register
	if got := names(ix.Search("email", 8).Hits); !cmp.Equal(got, []string{"send_email"}) {
		t.Fatalf("after add: %v", got)
	}
	ix.Apply(nil, []string{"send_email", "unknown"}) // unregister, unknown names ignored
	if got := names(ix.Search("email", 8).Hits); len(got) != 0 || ix.Len() != 4 {
		t.Fatalf("after remove: %v, len %d", got, ix.Len())
	}
	// Re-register with a new description replaces the old document.
	ix.Apply([]Doc{{"close_issue", "Resolve a ticket."}}, nil)
	if got := names(ix.Search("ticket", 8).Hits); !cmp.Equal(got, []string{"close_issue"}) {
		t.Fatalf("after replace: %v", got)
	}
	want := append(append([]Doc{}, testDocs[:2]...), Doc{"close_issue", "Resolve a ticket."}, testDocs[4])
	for _, q := range []string{"issue", "close", "create calendar", "ticket open"} {
		if diff := cmp.Diff(refHits(want, q, 20), ix.Search(q, 20).Hits, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q after updates differs from a fresh reference (-ref +index):\n%s", q, diff)
		}
	}
	// Removing everything leaves no stale postings.
	ix.Apply(nil, []string{"create_issue", "list_issues", "close_issue", "create_event"})
	if ix.Len() != 0 || len(ix.postings) != 0 || ix.totalLen != 0 {
		t.Errorf("empty index keeps %d docs, %d terms, length %d", ix.Len(), len(ix.postings), ix.totalLen)
	}
}

// TestApplyIsAtomic: a search during a swap sees the old set or the new one,
// never a mix (re-registering a host's tools replaces them as one change).
func TestApplyIsAtomic(t *testing.T) {
	ix := NewIndex(newTestAnalyzer(t))
	set := func(gen string) []Doc {
		var out []Doc
		for i := range 50 {
			out = append(out, Doc{Name: fmt.Sprintf("tool_%s_%d", gen, i), Description: "shared words " + gen})
		}
		return out
	}
	ix.Apply(set("a"), nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		old, cur := "a", "b"
		for i := 0; i < 200; i++ {
			var remove []string
			for _, d := range set(old) {
				remove = append(remove, d.Name)
			}
			ix.Apply(set(cur), remove)
			old, cur = cur, old
		}
		close(stop)
	}()
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		default:
		}
		res := ix.Search("shared", MaxLimit)
		if res.N != 50 || len(res.Hits) != MaxLimit {
			t.Fatalf("search during a swap saw %d docs and %d hits", res.N, len(res.Hits))
		}
		gen := strings.Split(res.Hits[0].Name, "_")[1]
		for _, h := range res.Hits {
			if !strings.Contains(h.Name, "_"+gen+"_") {
				t.Fatalf("search mixed generations: %v", names(res.Hits))
			}
		}
	}
	wg.Wait()
}

// TestRandomInventoriesMatchReference is the property test: on random
// inventories and queries, the index ranks exactly like the independent
// implementation.
func TestRandomInventoriesMatchReference(t *testing.T) {
	an := newTestAnalyzer(t)
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 7))
		docs := randomInventory(rng, 1+rng.IntN(120))
		ix := NewIndex(an)
		ix.Apply(docs, nil)
		for range 15 {
			q := randomText(rng, 1+rng.IntN(5))
			limit := 1 + rng.IntN(MaxLimit)
			if diff := cmp.Diff(refHits(docs, q, limit), ix.Search(q, limit).Hits, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("seed %d, query %q, limit %d (-ref +index):\n%s", seed, q, limit, diff)
			}
		}
	}
}

// vocabulary mixes the shapes the analyzer must get right; few words, so
// random documents share terms and scores tie.
var vocabulary = []string{
	"read", "file", "File", "create", "Create", "pull", "request", "HTTP", "server", "v2", "base64",
	"issue", "issues", "github", "send", "email", "calendar", "event", "ΟΔΟΣ", "οδος", "日本", "コーヒー",
	"ひらがな", "ｆｉｌｅ", "cre\u0301e", "crée", "ภาษา", "token", "OAuth2", "x",
}

var separators = []string{"_", "-", ".", "/", " ", "", "  ", ", ", ":"}

func randomText(rng *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteString(separators[rng.IntN(len(separators))])
		}
		b.WriteString(vocabulary[rng.IntN(len(vocabulary))])
	}
	return b.String()
}

func randomInventory(rng *rand.Rand, n int) []Doc {
	seen := map[string]bool{}
	var docs []Doc
	for len(docs) < n {
		name := randomText(rng, 1+rng.IntN(3))
		if seen[name] {
			name = fmt.Sprintf("%s_%d", name, len(docs))
		}
		seen[name] = true
		docs = append(docs, Doc{Name: name, Description: randomText(rng, rng.IntN(12))})
	}
	return docs
}

func TestConcurrentSearchesDuringUpdates(t *testing.T) {
	ix := NewIndex(newTestAnalyzer(t))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range 100 {
				name := fmt.Sprintf("w%d_tool_%d", w, i%10)
				if rng.IntN(3) == 0 {
					ix.Apply(nil, []string{name})
				} else {
					ix.Apply([]Doc{{Name: name, Description: randomText(rng, 5)}}, nil)
				}
				ix.Search(randomText(rng, 2), DefaultLimit)
			}
		}()
	}
	wg.Wait()
	if n := ix.Len(); n > 40 {
		t.Errorf("index holds %d documents, at most 40 names exist", n)
	}
}

// TestSearchCamelCaseBrands: a camelCase word is indexed and queried whole
// as well as split, so the query GitHub (not only git + hub) finds every
// mcp__github__* tool.
func TestSearchCamelCaseBrands(t *testing.T) {
	docs := []Doc{
		{"mcp__github__create_issue", "Create an issue."},
		{"mcp__github__search_code", "Search code."},
		{"open_pr", "Open a pull request on GitHub."},
		{"git_commit", "Record changes in the git repository."},
		{"youtube_upload", "Upload a video."},
		{"list_files", "List files."},
	}
	ix := NewIndex(newTestAnalyzer(t))
	ix.Apply(docs, nil)
	tests := []struct {
		query string
		want  []string // the hits, in any order
	}{
		{"GitHub", []string{"mcp__github__create_issue", "mcp__github__search_code", "open_pr", "git_commit"}},
		{"github", []string{"mcp__github__create_issue", "mcp__github__search_code", "open_pr"}},
		{"GITHUB", []string{"mcp__github__create_issue", "mcp__github__search_code", "open_pr"}},
		{"YouTube", []string{"youtube_upload"}},
		{"hub", []string{"open_pr"}}, // the parts stay searchable
	}
	for _, tc := range tests {
		res := ix.Search(tc.query, 20)
		if diff := cmp.Diff(tc.want, names(res.Hits), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("Search(%q) (-want +got):\n%s", tc.query, diff)
		}
		if diff := cmp.Diff(refHits(docs, tc.query, 20), res.Hits, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Search(%q) differs from the reference (-ref +index):\n%s", tc.query, diff)
		}
	}
}
