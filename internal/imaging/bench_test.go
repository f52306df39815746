package imaging

import (
	"testing"

	"steerable.dev/sidecar/internal/mediatest"
)

// BenchmarkFitPhoto: read_file's work on a 4000×3000 photo: decode, scale
// to 1568×1176, encode (bench/media compares it with ImageMagick).
func BenchmarkFitPhoto(b *testing.B) {
	src := mediatest.JPEG(mediatest.Photo(4000, 3000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fit(src, Limits{MaxEdge: 1568, MaxBytes: 3_932_160}); err != nil {
			b.Fatal(err)
		}
	}
}
