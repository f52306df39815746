package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Allocation benchmarks of the file tools. Each runs one tool
// call per iteration on a 4 KiB, 1 MiB and 100 MiB file, through the tool
// itself (its arguments decoded, no JSON-RPC framing), and reports besides
// -benchmem's B/op the metric alloc/size: bytes allocated per call over the
// file's size. The target for small files is at most 2× the size + 16 KiB.
//
//	go test -run '^$' -bench 'File|VersionHash' -benchmem ./internal/tools/

var benchSizes = []struct {
	name string
	size int
}{{"4KiB", 4 << 10}, {"1MiB", 1 << 20}, {"100MiB", 100 << 20}}

// benchText is size bytes of numbered 64-byte lines; tag changes every
// line's text, so two tags give two contents of the same size.
func benchText(size int, tag string) string {
	var b strings.Builder
	b.Grow(size + 64)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%08d %s the quick brown fox jumps over the lazy dog %s\n", i, tag, tag)
	}
	return b.String()[:size]
}

// benchTool runs the named tool with each of args in turn, failing on a
// failed result, and reports alloc/size.
func benchTool(b *testing.B, h *fileHarness, name string, size int, args ...string) {
	e, ok := h.d.reg.Lookup(name)
	if !ok {
		b.Fatalf("no tool %s", name)
	}
	calls := make([]Call, len(args))
	for i, a := range args {
		calls[i] = Call{ID: "bench", Arguments: json.RawMessage(a)}
	}
	ctx := context.Background()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := e.Tool.Run(ctx, calls[i%len(calls)]); !res.Success {
			b.Fatalf("%s failed: %s", name, res.Error)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(size), "alloc/size")
}

func quoteJSON(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

func BenchmarkReadFile(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			h := newFileHarness(b, maxBytes(1<<30))
			h.write("f.txt", benchText(sz.size, "a"))
			benchTool(b, h, "read_file", sz.size, `{"path":"f.txt"}`)
		})
	}
}

func BenchmarkWriteFile(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			// A read of a file over 100,000 characters is partial and
			// would refuse a whole write: the gate is off, and the first
			// write records the version the next ones check.
			h := newFileHarness(b, maxBytes(1<<30), noReadGate)
			h.write("f.txt", benchText(sz.size, "a"))
			// Alternate two contents so that every call writes.
			one := `{"path":"f.txt","content":` + quoteJSON(benchText(sz.size, "b")) + `}`
			two := `{"path":"f.txt","content":` + quoteJSON(benchText(sz.size, "a")) + `}`
			benchTool(b, h, "write_file", sz.size, one, two)
		})
	}
}

func BenchmarkEditFile(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			h := newFileHarness(b, maxBytes(1<<30))
			text := benchText(sz.size, "a")
			mid := strings.Index(text[len(text)/2:], "\n") + len(text)/2 + 1
			text = text[:mid] + "MARKER line\n" + text[mid:]
			h.write("f.txt", text)
			h.read("f.txt")
			edit := func(from, to string) string {
				return `{"path":"f.txt","edits":[{"oldText":` + quoteJSON(from) + `,"newText":` + quoteJSON(to) + `}]}`
			}
			benchTool(b, h, "edit_file", len(text), edit("MARKER line", "marker LINE"), edit("marker LINE", "MARKER line"))
		})
	}
}

// BenchmarkVersionHash is the version check of write_file and apply_patch
// deletes: hashing the file on disk without keeping it.
func BenchmarkVersionHash(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			h := newFileHarness(b, maxBytes(1<<30))
			h.write("f.txt", benchText(sz.size, "a"))
			env := fileEnvOf(Deps{Files: h.ws, ReadState: h.state, FileMaxBytes: 1 << 30})
			abs, ctx := h.abs("f.txt"), context.Background()
			b.SetBytes(int64(sz.size))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, refused := env.hash(ctx, abs); refused != nil {
					b.Fatal(refused)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(sz.size), "alloc/size")
		})
	}
}
