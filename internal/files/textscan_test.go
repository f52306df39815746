package files

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/readstate"
)

func scan(t *testing.T, content string, opt ScanOptions, oneByte bool) (Text, string, error) {
	t.Helper()
	var r io.Reader = strings.NewReader(content)
	if oneByte {
		r = iotest.OneByteReader(r) // every rune split across reads
	}
	h := readstate.NewHasher()
	got, err := ScanText(r, h, opt)
	return got, h.Version(), err
}

func TestScanText(t *testing.T) {
	long := strings.Repeat("é", ClipHead) + strings.Repeat("x", 5) + strings.Repeat("日", ClipTail)
	tests := []struct {
		name    string
		content string
		opt     ScanOptions
		want    Text
		partial bool
	}{
		{"empty", "", ScanOptions{}, Text{FirstLine: 1}, false},
		{"one line no LF", "abc", ScanOptions{}, Text{Content: "abc", TotalLines: 1, Bytes: 3, FirstLine: 1, Shown: 1}, false},
		{"CRLF and BOM kept", "\ufeffa\r\nb\r\n", ScanOptions{}, Text{Content: "\ufeffa\r\nb\r\n", TotalLines: 2, Bytes: 9, FirstLine: 1, Shown: 2}, false},
		{"range middle", "1\n2\n3\n4\n", ScanOptions{Offset: 2, Limit: 2}, Text{Content: "2\n3\n", TotalLines: 4, Bytes: 8, FirstLine: 2, Shown: 2}, true},
		{"range to end", "1\n2\n3", ScanOptions{Offset: 2}, Text{Content: "2\n3", TotalLines: 3, Bytes: 5, FirstLine: 2, Shown: 2}, true},
		{"range covering all", "1\n2\n", ScanOptions{Offset: 1, Limit: 10}, Text{Content: "1\n2\n", TotalLines: 2, Bytes: 4, FirstLine: 1, Shown: 2}, false},
		{"range past end", "1\n2\n", ScanOptions{Offset: 5}, Text{TotalLines: 2, Bytes: 4, FirstLine: 5}, true},
		{"exactly the limit", strings.Repeat("a", ClipHead+ClipTail), ScanOptions{},
			Text{Content: strings.Repeat("a", ClipHead+ClipTail), TotalLines: 1, Bytes: ClipHead + ClipTail, FirstLine: 1, Shown: 1}, false},
		{"clipped multibyte", long, ScanOptions{},
			Text{Content: strings.Repeat("é", ClipHead) + ClipMarker(5) + strings.Repeat("日", ClipTail), Truncated: 5, TotalLines: 1, Bytes: int64(len(long)), FirstLine: 1, Shown: 1}, true},
		{"ranged and clipped", "skip\n" + strings.Repeat("b", ClipHead+ClipTail+1) + "\n", ScanOptions{Offset: 2, Limit: 1},
			Text{Content: strings.Repeat("b", ClipHead) + ClipMarker(2) + strings.Repeat("b", ClipTail-1) + "\n", Truncated: 2, TotalLines: 2, Bytes: ClipHead + ClipTail + 7, FirstLine: 2, Shown: 1}, true},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			if oneByte && len(tt.content) > 1000 && tt.name != "clipped multibyte" {
				continue
			}
			t.Run(tt.name, func(t *testing.T) {
				got, version, err := scan(t, tt.content, tt.opt, oneByte)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("text (-want +got):\n%s", diff)
				}
				if got.Partial() != tt.partial {
					t.Errorf("Partial() = %v", got.Partial())
				}
				if version != readstate.Of([]byte(tt.content)) {
					t.Error("the version is not the hash of the whole content")
				}
			})
		}
	}
}

func TestScanTextRefusesBinary(t *testing.T) {
	tests := []struct {
		name, content, typ, reason string
	}{
		{"NUL", "abc\x00def", "application/octet-stream", "NUL bytes"},
		{"PNG", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png", "NUL bytes"},
		{"latin-1", "caf\xe9\n", "text/plain; charset=utf-8", "invalid UTF-8"},
		{"truncated rune at EOF", "ok \xe6\x97", "text/plain; charset=utf-8", "invalid UTF-8"},
		{"overlong", "\xc0\xaf", "text/plain; charset=utf-8", "invalid UTF-8"},
		{"surrogate", "\xed\xa0\x80", "text/plain; charset=utf-8", "invalid UTF-8"},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				_, _, err := scan(t, tt.content, ScanOptions{}, oneByte)
				var nt *NotTextError
				if !errors.As(err, &nt) || (!oneByte && (nt.Reason != tt.reason || nt.Type != tt.typ)) {
					t.Fatalf("err = %#v, want %s (%s)", err, tt.reason, tt.typ)
				}
			})
		}
	}
}

// TestScanTextMemoryIsBounded streams 64 MiB through the scanner; the clip
// buffers stay under a few MiB however big the input is.
func TestScanTextMemoryIsBounded(t *testing.T) {
	line := []byte(strings.Repeat("0123456789", 9) + "ü\n")
	r := io.LimitReader(&repeatReader{line: line}, 64<<20)
	got, err := ScanText(r, io.Discard, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes != 64<<20 || got.Truncated == 0 || !strings.Contains(got.Content, "characters truncated]...") {
		t.Fatalf("bytes %d, truncated %d", got.Bytes, got.Truncated)
	}
	if n := len([]rune(got.Content)); n != ClipHead+ClipTail+len([]rune(ClipMarker(got.Truncated))) {
		t.Errorf("content holds %d characters", n)
	}
}

type repeatReader struct {
	line []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}

func TestCountChars(t *testing.T) {
	for _, s := range []string{"", "a", "héllo wörld — “quotes” 日本", strings.Repeat("ab日", 100), "\xbf\xbf"} {
		want := 0
		for i := 0; i < len(s); i++ {
			if s[i]&0xC0 != 0x80 {
				want++
			}
		}
		if got := countChars([]byte(s)); got != want {
			t.Errorf("countChars(%q) = %d, want %d", s, got, want)
		}
	}
}

func BenchmarkScanText(b *testing.B) {
	data := bytes.Repeat([]byte(strings.Repeat("x", 99)+"\n"), 1<<20/100*16)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ScanText(bytes.NewReader(data), readstate.NewHasher(), ScanOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestScanTextReusesChunks is the regression test for a small read's cost:
// each scan allocated and zeroed four fresh 256 KiB chunks (1 MiB) however
// small the file. Now a file within the head is read with one pooled buffer
// and a larger one with pooled chunks: a scan allocates a few KiB (under the
// race detector, which drops a quarter of what is put in a sync.Pool, about
// one chunk).
func TestScanTextReusesChunks(t *testing.T) {
	line := "0123456789abcdef0123456789abcdef0123456789abcdef012345678901234\n"
	for _, size := range []int{4 << 10, 600 << 10} {
		content := strings.Repeat(line, size/len(line))
		opt := ScanOptions{Limit: 1} // one line kept: what is allocated is the buffers
		scan(t, content, opt, false) // warm the pools
		const runs = 50
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			if _, _, err := scan(t, content, opt, false); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		if perScan := (after.TotalAlloc - before.TotalAlloc) / runs; perScan > 512<<10 {
			t.Errorf("a %d KiB scan allocated %d KiB; the buffers are not reused", size>>10, perScan>>10)
		}
	}
}

// TestScanTextConcurrentPooledChunks: scans running at once never share a
// pooled chunk (a chunk handed back before its hash is done would mix one
// file's bytes into another's version or text).
func TestScanTextConcurrentPooledChunks(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			content := strings.Repeat(fmt.Sprintf("goroutine %d line\n", g), 20000+g*1000) // several chunks each
			want := readstate.Of([]byte(content))
			for range 10 {
				got, version, err := scan(t, content, ScanOptions{Limit: 1}, false)
				if err != nil || version != want || got.Content != fmt.Sprintf("goroutine %d line\n", g) {
					t.Errorf("goroutine %d: version %s (want %s), content %q, err %v", g, version, want, got.Content, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
