package codesearch

import (
	"context"
	"os"
	"testing"
)

// BenchmarkGrepTree greps the tree named by $GREP_BENCH_TREE (make bench's
// generated tree, or the Go module cache) with the expressions of bench/grep,
// for profiling (go test -cpuprofile); it is skipped without the variable.
func BenchmarkGrepTree(b *testing.B) {
	dir := os.Getenv("GREP_BENCH_TREE")
	if dir == "" {
		b.Skip("GREP_BENCH_TREE is not set")
	}
	e := engineOn(b, dir, Options{})
	e.maxLimit = MaxLimit
	for _, c := range []struct{ name, q string }{
		{"literal", `func \w+Handler\(`},
		{"byte", `\b[A-Z]{4,}_[0-9]{3}\b`},
		{"bare", `\b[A-Z]{4,}[0-9]{3}\b`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Grep(context.Background(), GrepQuery{Query: Query{Text: c.q, Regex: true}, Limit: MaxLimit}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
