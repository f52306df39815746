package files

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/readstate"
)

// scan runs ScanText on content; inMemory passes its size as the hint, so
// that a small content takes the one-buffer path instead of the stream.
func scan(t *testing.T, content string, opt ScanOptions, oneByte, inMemory bool) (Text, string, error) {
	t.Helper()
	if inMemory {
		opt.SizeHint = int64(len(content))
	}
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
		for _, mode := range []struct{ oneByte, inMemory bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			if mode.oneByte && len(tt.content) > 1000 && tt.name != "clipped multibyte" {
				continue
			}
			t.Run(fmt.Sprintf("%s/%+v", tt.name, mode), func(t *testing.T) {
				got, version, err := scan(t, tt.content, tt.opt, mode.oneByte, mode.inMemory)
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
		for _, mode := range []struct{ oneByte, inMemory bool }{{false, false}, {true, false}, {false, true}} {
			t.Run(fmt.Sprintf("%s/%+v", tt.name, mode), func(t *testing.T) {
				_, _, err := scan(t, tt.content, ScanOptions{}, mode.oneByte, mode.inMemory)
				var nt *NotTextError
				if !errors.As(err, &nt) || (!mode.oneByte && (nt.Reason != tt.reason || nt.Type != tt.typ)) {
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

// TestScanTextFileGrew: a file that grew past smallFile since its stat is
// streamed, not cut at the hinted size.
func TestScanTextFileGrew(t *testing.T) {
	content := strings.Repeat("grown line\n", smallFile/10)
	h := readstate.NewHasher()
	got, err := ScanText(strings.NewReader(content), h, ScanOptions{SizeHint: 100})
	if err != nil || got.Bytes != int64(len(content)) || h.Version() != readstate.Of([]byte(content)) {
		t.Fatalf("ScanText = %d bytes, %v; version of the whole: %v", got.Bytes, err, h.Version() == readstate.Of([]byte(content)))
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

// FuzzScanTextPaths: the one-buffer path and the stream agree on any
// content and range, text or not.
func FuzzScanTextPaths(f *testing.F) {
	f.Add("a\nb\r\nc", 2, 1)
	f.Add("caf\xe9\n", 0, 0)
	f.Add("\ufeff日本\n\n", 3, 0)
	f.Fuzz(func(t *testing.T, content string, offset, limit int) {
		if offset < 0 || limit < 0 {
			return
		}
		opt := ScanOptions{Offset: offset, Limit: limit}
		streamed, v1, err1 := scan(t, content, opt, false, false)
		whole, v2, err2 := scan(t, content, opt, false, true)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("errors differ: stream %v, in memory %v", err1, err2)
		}
		if diff := cmp.Diff(streamed, whole); diff != "" || v1 != v2 {
			t.Fatalf("results differ (-stream +in memory):\n%s", diff)
		}
	})
}
