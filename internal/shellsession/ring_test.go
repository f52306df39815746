package shellsession

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRing(t *testing.T) {
	for _, tc := range []struct {
		name        string
		size        int
		writes      []string
		from        int64
		want        string
		wantDropped int64
	}{
		{"empty", 8, nil, 0, "", 0},
		{"fits", 8, []string{"abc", "de"}, 0, "abcde", 0},
		{"from the middle", 8, []string{"abcdef"}, 2, "cdef", 0},
		{"wraps", 4, []string{"abc", "def"}, 0, "cdef", 2},
		{"wraps twice", 4, []string{"ab", "cd", "ef", "gh", "i"}, 0, "fghi", 5},
		{"a write larger than the ring", 4, []string{"ab", "0123456789"}, 0, "6789", 8},
		{"a large write, then more", 4, []string{"0123456789", "xy"}, 7, "89xy", 1},
		{"read up to date", 4, []string{"abcdef"}, 6, "", 0},
		{"the reader kept up", 4, []string{"abc", "def"}, 3, "def", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRing(tc.size)
			for _, w := range tc.writes {
				r.Write([]byte(w))
			}
			got, dropped := r.Since(tc.from)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" || dropped != tc.wantDropped {
				t.Errorf("Since(%d) = %q, dropped %d; want %q, %d", tc.from, got, dropped, tc.want, tc.wantDropped)
			}
			if total := int64(len(strings.Join(tc.writes, ""))); r.End() != total {
				t.Errorf("End = %d, want %d", r.End(), total)
			}
		})
	}
}

// The ring against a plain string of everything written, over many write
// sizes and read points.
func TestRingMatchesAPlainRecord(t *testing.T) {
	r := NewRing(97)
	var all strings.Builder
	for i := range 400 {
		w := strings.Repeat(string(rune('a'+i%26)), (i*37)%150)
		r.Write([]byte(w))
		all.WriteString(w)
		for _, from := range []int64{0, r.End() / 2, r.Start(), r.End() - 5, r.End()} {
			from = max(from, 0)
			got, dropped := r.Since(from)
			kept := max(from, r.Start())
			if string(got) != all.String()[kept:] || dropped != kept-from {
				t.Fatalf("write %d, Since(%d): %d bytes, dropped %d", i, from, len(got), dropped)
			}
		}
	}
}
