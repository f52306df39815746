package toolsearch

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	sidecar "steerable.dev/sidecar"
	"steerable.dev/sidecar/internal/toolsearch/refbm25"
)

// toolSearchContract is the "toolSearch" section of tool_contract.json.
type toolSearchContract struct {
	Parameters struct {
		K1             float64 `json:"k1"`
		B              float64 `json:"b"`
		NameWeight     int     `json:"nameWeight"`
		DefaultResults int     `json:"defaultResults"`
		MaxResults     int     `json:"maxResults"`
		MaxQueryChars  int     `json:"maxQueryCharacters"` // enforced and checked by package tools
		Tokenisation   []string
	} `json:"parameters"`
	Vectors []struct {
		Text   string   `json:"text"`
		Tokens []string `json:"tokens"`
	} `json:"tokenisationVectors"`
	Inventory []Doc `json:"inventory"`
	Queries   []struct {
		Query      string   `json:"query"`
		MaxResults int      `json:"maxResults"`
		Terms      []string `json:"terms"`
		Expected   []Hit    `json:"expected"`
	} `json:"queries"`
}

func loadContract(t *testing.T) toolSearchContract {
	t.Helper()
	var c struct {
		ToolSearch toolSearchContract `json:"toolSearch"`
	}
	if err := json.Unmarshal(sidecar.Contract, &c); err != nil {
		t.Fatal(err)
	}
	ts := c.ToolSearch
	if len(ts.Inventory) < 40 || len(ts.Queries) < 15 || len(ts.Vectors) == 0 {
		t.Fatalf("contract holds %d tools, %d queries, %d vectors; want ≥ 40, ≥ 15, > 0", len(ts.Inventory), len(ts.Queries), len(ts.Vectors))
	}
	return ts
}

func TestContractParameters(t *testing.T) {
	p := loadContract(t).Parameters
	got := []float64{p.K1, p.B, float64(p.NameWeight), float64(p.DefaultResults), float64(p.MaxResults)}
	want := []float64{K1, B, NameWeight, DefaultLimit, MaxLimit}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contract parameters differ from the code (-code +contract):\n%s", diff)
	}
}

func TestContractTokenisationVectors(t *testing.T) {
	an := newTestAnalyzer(t)
	for _, v := range loadContract(t).Vectors {
		if diff := cmp.Diff(v.Tokens, an.Terms(v.Text)); diff != "" {
			t.Errorf("analyzer(%q) (-contract +got):\n%s", v.Text, diff)
		}
		if diff := cmp.Diff(v.Tokens, refbm25.Tokenize(v.Text)); diff != "" {
			t.Errorf("refbm25.Tokenize(%q) (-contract +got):\n%s", v.Text, diff)
		}
	}
}

// TestContractQueries recomputes every expected score with the independent
// implementation, and checks the index ranks exactly the same way.
func TestContractQueries(t *testing.T) {
	c := loadContract(t)
	ref := make([]refbm25.Doc, len(c.Inventory))
	for i, d := range c.Inventory {
		ref[i] = refbm25.Doc{Name: d.Name, Description: d.Description}
	}
	corpus := refbm25.New(ref)
	ix := NewIndex(newTestAnalyzer(t))
	ix.Apply(c.Inventory, nil)
	closeScores := cmpopts.EquateApprox(0, 1e-6)
	for _, q := range c.Queries {
		limit := DefaultLimit
		if q.MaxResults > 0 {
			limit = q.MaxResults
		}
		var refGot []Hit
		for _, h := range corpus.Rank(q.Query, limit) {
			refGot = append(refGot, Hit{Name: h.Name, Score: h.Score})
		}
		if diff := cmp.Diff(q.Expected, refGot, closeScores, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q: independent BM25 disagrees with the contract (-contract +ref):\n%s", q.Query, diff)
		}
		res := ix.Search(q.Query, limit)
		if diff := cmp.Diff(q.Expected, res.Hits, closeScores, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q: index disagrees with the contract (-contract +index):\n%s", q.Query, diff)
		}
		if diff := cmp.Diff(q.Terms, res.Terms); diff != "" {
			t.Errorf("%q: terms (-contract +index):\n%s", q.Query, diff)
		}
		for _, h := range q.Expected {
			if h.Score <= 0 || h.Score != math.Round(h.Score*1e6)/1e6 {
				t.Errorf("%q: contract score %v of %s is not a positive 6-decimal number", q.Query, h.Score, h.Name)
			}
		}
	}
}
