package protocol

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 40)
	for _, tc := range []struct {
		name, in string
		max      int
		want     []string // frames in order; "ERR" for ErrFrameTooLarge
	}{
		{"two frames", "a\nbb\n", 8, []string{"a\n", "bb\n"}},
		{"last frame without its newline", "a\nbb", 8, []string{"a\n", "bb"}},
		{"at the limit", "abcd\n", 4, []string{"abcd\n"}},
		{"over the limit, then the next frame", "abcde\nok\n", 4, []string{"ERR", "ok\n"}},
		{"longer than the reader's buffer", long + "\nok\n", 20, []string{"ERR", "ok\n"}},
		{"a frame across buffer refills", long + "\n", 64, []string{long + "\n"}},
		{"empty lines are frames", "\n\n", 4, []string{"\n", "\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
			var got []string
			for {
				f, err := ReadLine(in, tc.max)
				if errors.Is(err, io.EOF) {
					break
				}
				if errors.Is(err, ErrFrameTooLarge) {
					got = append(got, "ERR")
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(f))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzReadLine: whatever a host sends, every frame is within the limit, and
// the frames plus the discarded lines account for the whole input.
func FuzzReadLine(f *testing.F) {
	f.Add("a\nbb\nccc", 2)
	f.Add(strings.Repeat("y", 100)+"\n\n", 10)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 1 || max > 1<<12 {
			return
		}
		in := bufio.NewReaderSize(strings.NewReader(s), 16)
		for range len(s) + 1 {
			fr, err := ReadLine(in, max)
			if errors.Is(err, io.EOF) {
				return
			}
			if errors.Is(err, ErrFrameTooLarge) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(fr) > max+1 || len(fr) == 0 {
				t.Fatalf("frame of %d bytes with max %d", len(fr), max)
			}
		}
		t.Fatal("ReadLine did not reach EOF")
	})
}
