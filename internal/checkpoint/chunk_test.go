package checkpoint

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// full is the chunking of data from scratch.
func full(data string) *chunking {
	c := &chunking{data: data}
	end := 0
	chunks(data, func(p string) {
		c.hashes = append(c.hashes, sum(p))
		end += len(p)
		c.ends = append(c.ends, end)
	})
	return c
}

// rechunk must give exactly the chunks that chunking from scratch gives,
// whatever the edit: the store's versions name chunks by these hashes.
func TestRechunkIsChunking(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	edits := []struct {
		name string
		edit func(s string) string
	}{
		{"replace", func(s string) string { at := r.IntN(len(s)); return s[:at] + "XYZW" + s[min(at+4, len(s)):] }},
		{"insert", func(s string) string { at := r.IntN(len(s)); return s[:at] + randomText(r, r.IntN(3000)) + s[at:] }},
		{"delete", func(s string) string { at := r.IntN(len(s)); return s[:at] + s[min(at+r.IntN(5000), len(s)):] }},
		{"append", func(s string) string { return s + randomText(r, r.IntN(100)+1) }},
		{"truncate", func(s string) string { return s[:r.IntN(len(s))] }},
		{"prepend", func(s string) string { return "x" + s }},
		{"same", func(s string) string { return s }},
		{"empty", func(string) string { return "" }},
		{"unrelated", func(s string) string { return randomText(r, len(s)) }},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			for range 40 {
				prev := randomText(r, 1+r.IntN(300<<10))
				next := e.edit(prev)
				hashes, ends := rechunk(full(prev), next)
				want := full(next)
				if !slices.Equal(hashes, want.hashes) || !slices.Equal(ends, want.ends) {
					t.Fatalf("%d → %d bytes: rechunk gives %d chunks ending %v, chunking %d ending %v",
						len(prev), len(next), len(hashes), ends, len(want.hashes), want.ends)
				}
			}
		})
	}
}
