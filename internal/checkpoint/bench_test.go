package checkpoint

import (
	"fmt"
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

// BenchmarkRecord is the recorder's cost per write, as the tools pay it:
// a 4 KiB file rewritten whole, and one edit of a 1 MiB file.
func BenchmarkRecord(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{MaxBytes: 512 << 20, KeepLimit: 64 << 20})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			r := rand.New(rand.NewPCG(7, 8))
			content := randomText(r, size)
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				at := r.IntN(len(content) - 10)
				next := content[:at] + fmt.Sprintf("%04d", i%10000) + content[at+4:]
				write(s, "c", "/w/f", content, next)
				content = next
			}
		})
	}
}
