package codesearch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// naiveHits is grep's meaning, computed the slow way: split into lines,
// test each, take context lines around. find is where a line matches, or
// -1.
func naiveHits(content []byte, find func(string) int, context int) []Hit {
	lines := strings.Split(string(content), "\n")
	if strings.HasSuffix(string(content), "\n") {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	var out []Hit
	for i, l := range lines {
		j := find(l)
		if j < 0 {
			continue
		}
		h := Hit{Line: i + 1, Text: window([]byte(l), j)}
		for k := max(0, i-context); k < i; k++ {
			h.Before = append(h.Before, headText([]byte(lines[k])))
		}
		for k := i + 1; k <= min(len(lines)-1, i+context); k++ {
			h.After = append(h.After, headText([]byte(lines[k])))
		}
		out = append(out, h)
	}
	return out
}

// scanFile runs one scanner over content, the way grep does.
func scanFile(t *testing.T, content []byte, q Query, m mode, context, keep int) (fileResult, bool) {
	t.Helper()
	mt, err := compile(q)
	if err != nil {
		t.Fatal(err)
	}
	s := &scanner{m: mt, mode: m, context: context}
	res, binary, err := s.scan(t.Context(), bytes.NewReader(content), int64(len(content)), keep)
	if err != nil {
		t.Fatal(err)
	}
	return res, binary
}

// TestScanAcrossRegions: a file of several regions (1 MiB each) with hits
// next to every region boundary, CRLF lines and one line longer than a
// region gives exactly the line-by-line answer, context lines included.
func TestScanAcrossRegions(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < 2*regionBytes+1000; i++ {
		switch {
		case i%997 == 0:
			fmt.Fprintf(&b, "line %d has the needle\r\n", i)
		case i == 20000:
			b.WriteString(strings.Repeat("x", regionBytes+5000) + "needle at the end of a very long line\n")
		default:
			fmt.Fprintf(&b, "line %d is filler text\n", i)
		}
		// hits on both sides of each boundary
		if n := b.Len() % regionBytes; n > regionBytes-40 || n < 40 {
			b.WriteString("needle near a boundary\n")
		}
	}
	b.WriteString("needle on the last line, no newline")
	content := b.Bytes()
	literal := func(l string) int { return strings.Index(l, "needle") }
	noLiteral := regexp.MustCompile(`\bn[a-z]{5}\b`) // no literal to search for: sliced regions
	regex := func(l string) int {
		if loc := noLiteral.FindStringIndex(l); loc != nil {
			return loc[0]
		}
		return -1
	}
	for _, c := range []struct {
		q    Query
		find func(string) int
	}{{Query{Text: "needle"}, literal}, {Query{Text: noLiteral.String(), Regex: true}, regex}} {
		for _, ctx := range []int{0, 2, MaxContext} {
			want := naiveHits(content, c.find, ctx)
			res, _ := scanFile(t, content, c.q, modeHits, ctx, 1<<30)
			if diff := cmp.Diff(want, res.hits); diff != "" {
				t.Fatalf("%q, context %d (-line by line +scan):\n%s", c.q.Text, ctx, diff)
			}
			if res.count != len(want) {
				t.Fatalf("count %d, want %d", res.count, len(want))
			}
		}
		res, _ := scanFile(t, content, c.q, modeCount, 0, 0)
		if res.count != len(naiveHits(content, c.find, 0)) || res.hits != nil {
			t.Fatalf("count mode: %d, %d texts", res.count, len(res.hits))
		}
	}
}

func TestScanCases(t *testing.T) {
	long := strings.Repeat("a", 10<<20) // a minified file: one 10 MB line
	cases := []struct {
		name    string
		content string
		q       Query
		want    []Hit
		binary  bool
	}{
		{"crlf", "one\r\ntwo foo\r\nthree\r\n", Query{Text: `foo$`, Regex: true}, []Hit{{Line: 2, Text: "two foo"}}, false},
		{"no final newline", "a\nfoo", Query{Text: "foo"}, []Hit{{Line: 2, Text: "foo"}}, false},
		{"invalid utf-8", "ok\nbad \xff\xfe foo\n", Query{Text: "foo"}, []Hit{{Line: 2, Text: "bad \uFFFD foo"}}, false},
		{"nul early: binary", "abc\x00def foo\n", Query{Text: "foo"}, nil, true},
		{"nul after 8 KiB: text", strings.Repeat("x", binaryProbe) + "\x00\nfoo\n", Query{Text: "foo"}, []Hit{{Line: 2, Text: "foo"}}, false},
		{"empty file", "", Query{Text: `^`, Regex: true}, nil, false},
		{"one hit per line", "foo foo foo\n", Query{Text: "foo"}, []Hit{{Line: 1, Text: "foo foo foo"}}, false},
		{"case-insensitive", "FOO\nfOo\nbar\n", Query{Text: "foo", IgnoreCase: true}, []Hit{{Line: 1, Text: "FOO"}, {Line: 2, Text: "fOo"}}, false},
		{"kelvin sign folds to k", "\u212aey\n", Query{Text: "key", IgnoreCase: true}, []Hit{{Line: 1, Text: "\u212aey"}}, false},
		{"minified line", long + "needle" + long + "\n", Query{Text: "needle"},
			[]Hit{{Line: 1, Text: "…" + strings.Repeat("a", textLead) + "needle" + strings.Repeat("a", MaxTextChars-2-textLead-6) + "…"}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, binary := scanFile(t, []byte(c.content), c.q, modeHits, 0, 100)
			if binary != c.binary {
				t.Fatalf("binary = %v", binary)
			}
			if diff := cmp.Diff(c.want, res.hits); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, h := range res.hits {
				if n := utf8.RuneCountInString(h.Text); n > MaxTextChars {
					t.Errorf("text of %d characters", n)
				}
			}
		})
	}
}

// TestWindow: long lines are cut to MaxTextChars with the match in view,
// at character (not byte) boundaries.
func TestWindow(t *testing.T) {
	line := []byte(strings.Repeat("é", 1000))
	for _, at := range []int{0, 2 * 300, len(line) - 2} {
		w := window(line, at)
		if n := utf8.RuneCountInString(w); n != MaxTextChars || !utf8.ValidString(w) {
			t.Errorf("at %d: %d characters, valid %v", at, n, utf8.ValidString(w))
		}
	}
	if got := headText([]byte(strings.Repeat("x", 600))); utf8.RuneCountInString(got) != MaxTextChars || !strings.HasSuffix(got, "…") {
		t.Errorf("headText: %q", got)
	}
}

// TestScanMemoryBounded: a 30 MB file with a hit on every line keeps the
// text of only keep of them; a 10 MB line grows the buffer for that file
// only, and it is dropped afterwards.
func TestScanMemoryBounded(t *testing.T) {
	content := bytes.Repeat([]byte("needle needle\n"), 30<<20/14)
	res, _ := scanFile(t, content, Query{Text: "needle"}, modeHits, 0, 10)
	if len(res.hits) != 10 || res.count != 30<<20/14 {
		t.Fatalf("%d texts, count %d", len(res.hits), res.count)
	}
	m, _ := compile(Query{Text: "needle"})
	s := &scanner{m: m, mode: modeHits}
	long := []byte(strings.Repeat("a", 10<<20) + "needle\n")
	if _, _, err := s.scan(t.Context(), bytes.NewReader(long), int64(len(long)), 1); err != nil {
		t.Fatal(err)
	}
	if cap(s.buf) > keepBufBytes {
		t.Fatalf("buffer of %d bytes kept after the long line", cap(s.buf))
	}
}

func TestScanCancelled(t *testing.T) {
	m, _ := compile(Query{Text: "x"})
	s := &scanner{m: m, mode: modeCount}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	content := bytes.Repeat([]byte("x\n"), 1<<20)
	if _, _, err := s.scan(ctx, bytes.NewReader(content), int64(len(content)), 0); err != context.Canceled {
		t.Fatalf("err = %v", err)
	}
}

// writeBig writes n files of about size bytes each under dir/big.
func writeBig(t testing.TB, dir string, n, size int) {
	t.Helper()
	line := []byte("some ordinary text without the thing we look for, repeated\n")
	content := bytes.Repeat(line, size/len(line)+1)
	for i := range n {
		p := filepath.Join(dir, "big", fmt.Sprintf("d%d", i%50), fmt.Sprintf("f%d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
