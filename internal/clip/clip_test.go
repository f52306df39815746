package clip

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestMarker(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		u    Unit
		want string
	}{
		{1, Bytes, "\n...[1 bytes truncated]...\n"},
		{120000, Chars, "\n...[120000 characters truncated]...\n"},
	} {
		if got := Marker(tc.n, tc.u); got != tc.want {
			t.Errorf("Marker(%d, %v) = %q, want %q", tc.n, tc.u, got, tc.want)
		}
	}
}

var clipCases = []struct {
	name    string
	limit   Limit
	writes  []string
	want    string
	dropped int64
}{
	{"empty", Halves(8, Bytes), nil, "", 0},
	{"fits", Halves(8, Bytes), []string{"abc", "de"}, "abcde", 0},
	{"exactly the limit", Halves(8, Bytes), []string{"abcdefgh"}, "abcdefgh", 0},
	{"one over", Halves(8, Bytes), []string{"abcdefghi"}, "abcd\n...[1 bytes truncated]...\nfghi", 1},
	{"many small writes", Halves(8, Bytes), strings.Split("0123456789xyz", ""), "0123\n...[5 bytes truncated]...\n9xyz", 5},
	{"big then small", Halves(6, Bytes), []string{"abcdefghijkl", "mn"}, "abc\n...[8 bytes truncated]...\nlmn", 8},
	// "é" is two bytes: a byte cut through it drops the partial halves and counts them.
	{"bytes: utf8 cut at the head", Halves(6, Bytes), []string{"ab\xc3\xa9cdefg"}, "ab\n...[4 bytes truncated]...\nefg", 4},
	{"bytes: utf8 whole at the tail", Halves(6, Bytes), []string{"abcdefg\xc3\xa9h"}, "abc\n...[4 bytes truncated]...\néh", 4},
	{"bytes: utf8 cut at the tail", Halves(6, Bytes), []string{"abcdefg\xc3\xa9hi"}, "abc\n...[6 bytes truncated]...\nhi", 6},
	{"chars: head a fifth", Limit{2, 8, Chars}, []string{"0123456789abcdefghij"}, "01\n...[10 characters truncated]...\ncdefghij", 10},
	{"chars, not bytes", Limit{2, 8, Chars}, []string{strings.Repeat("é", 20)}, "éé\n...[10 characters truncated]...\néééééééé", 10},
	{"chars: a write splits a character", Limit{1, 1, Chars}, []string{"日\xe6", "\x9c\xac", "x"}, "日\n...[1 characters truncated]...\nx", 1},
	{"chars: exactly the limit", Limit{2, 2, Chars}, []string{"日本語x"}, "日本語x", 0},
	{"no head", Limit{0, 3, Chars}, []string{"abcdef"}, "\n...[3 characters truncated]...\ndef", 3},
	{"no tail", Limit{3, 0, Bytes}, []string{"abcdef"}, "abc\n...[3 bytes truncated]...\n", 3},
}

func TestLimitString(t *testing.T) {
	for _, tc := range clipCases {
		got, dropped := tc.limit.String(strings.Join(tc.writes, ""))
		if diff := cmp.Diff(tc.want, got); diff != "" || dropped != tc.dropped {
			t.Errorf("%s: dropped %d, want %d (-want +got):\n%s", tc.name, dropped, tc.dropped, diff)
		}
	}
}

func TestWriter(t *testing.T) {
	for _, tc := range clipCases {
		w := NewWriter(tc.limit)
		for _, s := range tc.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("%s: Write = %d, %v", tc.name, n, err)
			}
		}
		got, dropped := w.Result()
		if diff := cmp.Diff(tc.want, got); diff != "" || dropped != tc.dropped || w.Truncated() != (tc.dropped > 0) {
			t.Errorf("%s: dropped %d, want %d; truncated %v (-want +got):\n%s", tc.name, dropped, tc.dropped, w.Truncated(), diff)
		}
		w.Release()
	}
}

// TestWriterMemoryBounded: a stream many times the limit keeps at most
// twice the tail beside the head.
func TestWriterMemoryBounded(t *testing.T) {
	for _, u := range []Unit{Bytes, Chars} {
		w := NewWriter(Limit{Head: 100, Tail: 1000, Unit: u})
		chunk := bytes.Repeat([]byte("0123456789abcdeé"), 100)
		for range 10_000 {
			w.Write(chunk)
		}
		if len(w.head) > 200 || cap(w.rest) > w.restCap {
			t.Errorf("%v: head %d bytes, rest capacity %d (limit %d)", u, len(w.head), cap(w.rest), w.restCap)
		}
		if got, _ := w.Result(); !strings.HasSuffix(got, "abcdeé") || !strings.Contains(got, " truncated]...\n") {
			t.Errorf("%v: result ends %q", u, got[len(got)-40:])
		}
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{strings.Repeat("a", 100), 40, "aaaaa\n...[89 bytes truncated]...\naaaaaa"},
		{strings.Repeat("é", 100), 42, "ééé\n...[188 bytes truncated]...\nééé"},
		{strings.Repeat("a", 100), 5, "\n...[100 bytes truncated]...\n"},
	} {
		got := Within(tc.s, tc.n)
		if got != tc.want || (len(tc.s) > tc.n && len(got) > max(tc.n, len(Marker(int64(len(tc.s)), Bytes)))) {
			t.Errorf("Within(%d bytes, %d) = %q, want %q", len(tc.s), tc.n, got, tc.want)
		}
	}
}

// TestWithinKeepsWholeCharacters: whatever the budget, the result is valid
// UTF-8 and, once the budget holds the marker, within it.
func TestWithinKeepsWholeCharacters(t *testing.T) {
	s := strings.Repeat("héllo wörld ", 50) // 650 bytes, multi-byte runes
	for _, n := range []int{0, 10, 40, 100, 1000} {
		got := Within(s, n)
		if len(s) <= n {
			if got != s {
				t.Errorf("Within(%d) changed a short string", n)
			}
			continue
		}
		if !utf8.ValidString(got) || !strings.Contains(got, "bytes truncated]") {
			t.Errorf("Within(%d) = %q", n, got)
		}
		if n >= 40 && len(got) > n {
			t.Errorf("Within(%d) returned %d bytes", n, len(got))
		}
	}
}

func TestShort(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exact", 5, "exact"},
		{"abcdef", 3, "abc…"},
		{"héllo wörld", 4, "héll…"},
		{"ééé", 3, "ééé"}, // 6 bytes, 3 characters: fits
		{"日本語テキスト", 2, "日本…"},
		{"abc", 0, "…"},
	} {
		if got := Short(tc.s, tc.n); got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Short(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestCountChars(t *testing.T) {
	for _, s := range []string{"", "a", "héllo wörld, 日本語 text", strings.Repeat("é", 33), "\xff\xfe\x80abc", "12345678é"} {
		want := 0
		for i := 0; i < len(s); i++ {
			if utf8.RuneStart(s[i]) {
				want++
			}
		}
		if got := countChars(s); got != want {
			t.Errorf("countChars(%q) = %d, want %d", s, got, want)
		}
		if got := countChars([]byte(s)); got != want {
			t.Errorf("countChars([]byte(%q)) = %d, want %d", s, got, want)
		}
	}
}

// model is the obvious clip: the unit offsets of the text, the first Head
// and the last Tail of them, the cut edges trimmed to whole characters.
func model(data string, l Limit) string {
	var starts []int // byte offset of every unit
	for i := 0; i < len(data); i++ {
		if l.Unit == Bytes || utf8.RuneStart(data[i]) {
			starts = append(starts, i)
		}
	}
	if len(starts) <= l.Head+l.Tail {
		return data
	}
	starts = append(starts, len(data))
	headEnd, tailStart := starts[l.Head], starts[len(starts)-1-l.Tail]
	head, tail := data[:headEnd], data[tailStart:]
	if l.Unit == Bytes {
		head, tail = trimRuneEnd(head), trimRuneStart(tail)
	}
	return head + Marker(int64(l.count(data)-l.count(head)-l.count(tail)), l.Unit) + tail
}

// FuzzClip holds the writer, whatever the chunking, and Limit.String to the
// model, in both units.
func FuzzClip(f *testing.F) {
	f.Add([]byte("hello world, this is output"), uint8(3), uint8(10), uint8(4), false)
	f.Add(bytes.Repeat([]byte("xé日"), 300), uint8(7), uint8(64), uint8(9), true)
	f.Add([]byte("\x80\x80ab\xe6\x97"), uint8(1), uint8(1), uint8(1), true)
	f.Fuzz(func(t *testing.T, data []byte, step, head, tail uint8, chars bool) {
		l := Limit{Head: int(head) % 100, Tail: int(tail) % 100}
		if chars {
			l.Unit = Chars
		}
		want := model(string(data), l)
		if got, _ := l.String(string(data)); got != want {
			t.Fatalf("%+v String = %q, want %q", l, got, want)
		}
		w := NewWriter(l)
		s := int(step)%17 + 1
		for i := 0; i < len(data); i += s {
			w.Write(data[i:min(i+s, len(data))])
		}
		if got := w.String(); got != want {
			t.Fatalf("%+v Writer = %q, want %q", l, got, want)
		}
		if w.Total() != l.count(string(data)) {
			t.Fatalf("Total %d, want %d", w.Total(), l.count(string(data)))
		}
	})
}

func BenchmarkWriterBytes(b *testing.B) {
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	w := NewWriter(Halves(1<<20, Bytes))
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		w.Write(chunk)
	}
}

func BenchmarkWriterChars(b *testing.B) {
	chunk := bytes.Repeat([]byte("0123456789abcdé"), 4096)
	w := NewWriter(Limit{Head: 20_000, Tail: 80_000, Unit: Chars})
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		w.Write(chunk)
	}
}
