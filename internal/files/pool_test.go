package files

import (
	"context"
	"errors"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/readstate"
)

func TestHash(t *testing.T) {
	for _, tt := range []struct {
		name string
		size int
		hint int64
	}{
		{"small", 4 << 10, 4 << 10},
		{"empty", 0, 0},
		{"grew past the small size", 3 * smallHash, 100},
		{"large", 3 * chunkSize, 3 * chunkSize},
		{"no hint", 1000, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			content := strings.Repeat("x", tt.size)
			h := readstate.NewHasher()
			if err := Hash(context.Background(), h, strings.NewReader(content), tt.hint); err != nil {
				t.Fatal(err)
			}
			if h.Version() != readstate.OfString(content) {
				t.Error("wrong version")
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, hint := range []int64{10, 1 << 20} {
		if err := Hash(ctx, readstate.NewHasher(), strings.NewReader("abc"), hint); !errors.Is(err, context.Canceled) {
			t.Errorf("hint %d: cancelled hash = %v", hint, err)
		}
	}
}
