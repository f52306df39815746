package checkpoint

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkStore1000Edits records 1,000 edits of one 1 MiB file and
// reports the store's size (bytes-stored) and the time per recorded edit.
func BenchmarkStore1000Edits(b *testing.B) {
	for range b.N {
		s, err := Open(b.TempDir(), Options{MaxBytes: 512 << 20, KeepLimit: 64 << 20})
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(5, 6))
		content := randomText(r, 1<<20)
		write(s, "c0", "/w/big", "", content)
		for range 1000 {
			at := r.IntN(len(content) - 10)
			next := content[:at] + "EDIT" + content[at+4:]
			write(s, "c", "/w/big", content, next)
			content = next
		}
		b.ReportMetric(float64(s.Size()), "bytes-stored")
		s.Close()
	}
}
