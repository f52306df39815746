package runcode

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrameReaderSplitsLinesAndBoundsThem(t *testing.T) {
	long := strings.Repeat("x", 3*readBuffer) // spans several buffer fills
	tests := []struct {
		name, in string
		max      int
		want     []string
		err      error
	}{
		{"lines", "a\nbb\n\nccc\n", 10, []string{"a", "bb", "", "ccc"}, io.EOF},
		{"at the limit", "12345\n", 5, []string{"12345"}, io.EOF},
		{"over the limit", "ok\n123456\nnext\n", 5, []string{"ok"}, ErrFrameTooLarge},
		{"long line within the limit", long + "\nz\n", 4 * readBuffer, []string{long, "z"}, io.EOF},
		{"long line over the limit", long + "\n", 2 * readBuffer, nil, ErrFrameTooLarge},
		{"cut inside a line", "a\nhalf", 10, []string{"a"}, io.ErrUnexpectedEOF},
		{"cut inside a long line", long, 4 * readBuffer, nil, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := newFrameReader(strings.NewReader(tt.in), tt.max)
			var got []string
			var err error
			for {
				var line []byte
				if line, err = fr.next(); err != nil {
					break
				}
				got = append(got, string(line))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("end = %v, want %v", err, tt.err)
			}
		})
	}
}
