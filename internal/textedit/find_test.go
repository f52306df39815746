package textedit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// naiveExact is every start of old in text, overlapping ones included.
func naiveExact(text, old string) []int {
	var out []int
	for i := 0; i+len(old) <= len(text); i++ {
		if text[i:i+len(old)] == old {
			out = append(out, i)
		}
	}
	return out
}

func collectExact(t testing.TB, text, old string, long bool) []int {
	var got []int
	yield := func(p int) { got = append(got, p) }
	var err error
	if long {
		err = newKMP(old).each(ctx, text, yield)
	} else {
		err = eachExact(ctx, text, old, yield)
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestEachExact(t *testing.T) {
	per := strings.Repeat("ab", 40)
	tests := []struct{ text, old string }{
		{"aaaa", "aa"},
		{"abababab", "abab"},
		{"aabaabaabaa", "aabaa"},
		{"xyz", "xyzw"},
		{"", "a"},
		{per + "a" + per, per},
		{strings.Repeat("\tsame\n", 50), strings.Repeat("\tsame\n", 20) + "\tother\n"},
		{strings.Repeat("\tsame\n", 50), strings.Repeat("\tsame\n", 20)},
		{strings.Repeat("x", searchChunk+10) + "needle" + strings.Repeat("x", 5), "needle"}, // across a chunk boundary
		{strings.Repeat("x", searchChunk-3) + "needle", "needle"},
	}
	for _, tt := range tests {
		want := naiveExact(tt.text, tt.old)
		for _, long := range []bool{false, true} {
			if got := collectExact(t, tt.text, tt.old, long); !cmp.Equal(want, got) {
				t.Errorf("eachExact(%.20q, %.20q, kmp=%v) = %v, want %v", tt.text, tt.old, long, got, want)
			}
		}
	}
}

// FuzzEachExact: both exact searches agree with the naive one on any input
// (a small alphabet makes overlaps and near-matches common).
func FuzzEachExact(f *testing.F) {
	f.Add("abaababaab", "aba")
	f.Add("aaaaaaaab", "aaab")
	f.Fuzz(func(t *testing.T, text, old string) {
		if old == "" {
			return
		}
		want := naiveExact(text, old)
		for _, long := range []bool{false, true} {
			if got := collectExact(t, text, old, long); !cmp.Equal(want, got) {
				t.Fatalf("kmp=%v: got %v, want %v", long, got, want)
			}
		}
	})
}

func TestLinePatternScan(t *testing.T) {
	text := []string{"a", "b", "a", "b", "a", "c", "a", "b", "a"}
	tests := []struct {
		want  []string
		from  int
		first bool
		found []int
	}{
		{[]string{"a", "b", "a"}, 0, false, []int{0, 2, 6}},
		{[]string{"a", "b", "a"}, 1, false, []int{2, 6}},
		{[]string{"a", "b", "a"}, 0, true, []int{0}},
		{[]string{"c"}, 0, false, []int{5}},
		{[]string{"z"}, 0, false, nil},
		{[]string{"a", "c", "a", "b", "a", "x"}, 0, false, nil},
	}
	for _, tt := range tests {
		var got []int
		err := newLinePattern(tt.want).scan(ctx, tt.from, len(text), func(i int) string { return text[i] }, func(p int) bool {
			got = append(got, p)
			return !tt.first
		})
		if err != nil || !cmp.Equal(tt.found, got) {
			t.Errorf("scan(%v from %d) = %v, %v; want %v", tt.want, tt.from, got, err, tt.found)
		}
	}
}

// TestRepeatedLinesAreLinear is the repeated-lines case at a size that a
// quadratic matcher cannot finish within the test's deadline, while a linear one takes milliseconds. The deadline is a guard
// against hanging, not a timing assertion: the figures are in the
// benchmarks.
func TestRepeatedLinesAreLinear(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	content, old := repeatedCase(false)
	var ee *EditError
	if _, _, err := Edits(ctx, content, []Edit{{old, "x"}}); !errors.As(err, &ee) || ee.Code != CodeNotFound {
		t.Fatalf("edit: %v", err)
	}
	content, old = repeatedCase(true)
	if _, _, err := Edits(ctx, content, []Edit{{old, "x"}}); !errors.As(err, &ee) || ee.Code != CodeAmbiguous || ee.Count != fileLines-oldLines+1 {
		t.Fatalf("edit: %v", err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(old, "\n"), "\n") {
		lines = append(lines, " "+l)
	}
	h := hunk("", false, append(lines, "+x")...)
	var he *HunkError
	if _, err := ApplyHunks(ctx, content, []Hunk{h}); !errors.As(err, &he) || !strings.Contains(he.Reason, "matches 297001 places") {
		t.Fatalf("patch: %v", err)
	}
}

// countdownCtx is a context whose Err turns to Canceled after n calls, to
// show that a loop checks its context while it runs (not only before).
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestMatchingStopsWhenCancelled cancels at every check in turn, from the
// first to past the last: each run returns either context.Canceled or the
// same answer as an uncancelled run, so no check is skipped into a wrong
// result, and a cancel early in a long run is seen.
func TestMatchingStopsWhenCancelled(t *testing.T) {
	content := strings.Repeat("\tsame line\n", 50_000)
	old := strings.Repeat("\tsame line\n", 100) + "\tother\n"
	h := hunk("", false, " same line", " other", "+x")
	run := func(c context.Context) []error {
		_, _, e1 := Edits(c, content, []Edit{{old, "x"}})
		_, e2 := ApplyHunks(c, content, []Hunk{h})
		return []error{e1, e2}
	}
	want := run(ctx)
	for _, e := range want {
		if e == nil || errors.Is(e, context.Canceled) {
			t.Fatalf("uncancelled run: %v", want)
		}
	}
	for n := 0; n < 40; n++ {
		for i, err := range run(&countdownCtx{Context: ctx, n: n}) {
			if !errors.Is(err, context.Canceled) && err.Error() != want[i].Error() {
				t.Fatalf("cancel after %d checks: %v, want canceled or %v", n, err, want[i])
			}
		}
	}
	if _, _, err := Edits(&countdownCtx{Context: ctx, n: 3}, content, []Edit{{old, "x"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancel during the matching was not seen: %v", err)
	}
}

func TestFold(t *testing.T) {
	s := "a…b “c” d\u00a0e"
	f := fold(s)
	if f.text != `a...b "c" d e` {
		t.Fatalf("fold = %q", f.text)
	}
	for x, want := range map[int]int{0: 0, 1: 1, 4: len("a…"), 5: len("a…b"), len(f.text): len(s)} {
		if got, ok := f.orig(x); !ok || got != want {
			t.Errorf("orig(%d) = %d, %v; want %d", x, got, ok, want)
		}
	}
	for _, x := range []int{2, 3} { // inside "..."
		if _, ok := f.orig(x); ok {
			t.Errorf("orig(%d) inside the ellipsis was accepted", x)
		}
	}
	if g := fold("plain ascii"); g.segs != nil || g.text != "plain ascii" {
		t.Errorf("fold of ASCII = %+v", g)
	}
}
