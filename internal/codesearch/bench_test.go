//go:build linux

package codesearch

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// BenchmarkDFAFind runs the DFA alone over the first 8 MB of the files of
// $GREP_BENCH_TREE, in memory: the engine's speed without the walk.
func BenchmarkDFAFind(b *testing.B) {
	dir := os.Getenv("GREP_BENCH_TREE")
	if dir == "" {
		b.Skip("GREP_BENCH_TREE is not set")
	}
	var text []byte
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || len(text) > 8<<20 {
			return filepath.SkipDir
		}
		if de.Type().IsRegular() && strings.HasSuffix(p, ".go") {
			if data, err := os.ReadFile(p); err == nil && bytes.IndexByte(data, 0) < 0 {
				text = append(text, data...)
			}
		}
		return nil
	})
	for _, q := range []string{`\b[A-Z]{4,}[0-9]{3}\b`, `\b[A-Z]{4,}_[0-9]{3}\b`, `\w+\s+\w+\(\w*\)`} {
		m, err := compile(Query{Text: q, Regex: true})
		if err != nil || m.dfa == nil {
			b.Fatal(q, err)
		}
		b.Run(q, func(b *testing.B) {
			d := newLazyDFA(m.dfa)
			b.SetBytes(int64(len(text)))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0 := threadCPU()
			defer func() {
				// The machine is shared: CPU time is steadier than wall time.
				b.ReportMetric(float64(len(text))*float64(b.N)/(threadCPU()-cpu0).Seconds()/1e6, "cpuMB/s")
			}()
			for b.Loop() {
				for pos := 0; pos < len(text); {
					at, res := d.find(text, pos)
					if res != dfaFound {
						break
					}
					pos = lineAround(text, pos, at).end + 1
				}
			}
		})
	}
}

// threadCPU is the CPU time of the calling thread (locked to it).
func threadCPU() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_THREAD, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
