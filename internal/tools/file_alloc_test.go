package tools

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
)

// TestFileToolAllocations is the allocation regression test:
// each file tool, run in process on a small file, allocates about its size,
// not the 1 MiB of hash-pipe buffers read_file took for a 4 KiB file. The
// ceilings are loose (3× the size + 16 KiB) so that the test is not flaky;
// the benchmarks (file_bench_test.go) carry the real figures. None of these
// calls touches a sync.Pool, so the race detector (which makes pools drop
// items) does not change them.
func TestFileToolAllocations(t *testing.T) {
	const runs = 50
	for _, size := range []int{4 << 10, 1 << 20} {
		h := newFileHarness(t, noReadGate)
		text := benchText(size, "a")
		h.write("f.txt", text)
		h.write("e.txt", "MARKER line\n"+text)
		h.write("w.txt", text)
		edit := func(from, to string) string {
			return `{"path":"e.txt","edits":[{"oldText":"` + from + `","newText":"` + to + `"}]}`
		}
		cases := []struct {
			tool  string
			args  []string
			small bool // only for small files: a larger one hashes through a pooled buffer
		}{
			{"read_file", []string{`{"path":"f.txt"}`}, false},
			{"edit_file", []string{edit("MARKER line", "marker LINE"), edit("marker LINE", "MARKER line")}, false},
			{"write_file", []string{`{"path":"w.txt","content":` + quoteJSON(benchText(size, "b")) + `}`, `{"path":"w.txt","content":` + quoteJSON(text) + `}`}, true},
		}
		for _, c := range cases {
			if c.small && size > 64<<10 {
				continue
			}
			perCall := allocatedPerCall(t, h, c.tool, runs, c.args)
			if ceiling := 3*size + 16<<10; perCall > ceiling {
				t.Errorf("%s of %d bytes allocates %d bytes per call, over %d", c.tool, size, perCall, ceiling)
			}
		}
	}
}

// allocatedPerCall runs the tool n times (args in turn) and returns the
// bytes allocated per call.
func allocatedPerCall(t *testing.T, h *fileHarness, name string, n int, args []string) int {
	t.Helper()
	e, _ := h.d.reg.Lookup(name)
	ctx := context.Background()
	run := func(i int) {
		if res := e.Tool.Run(ctx, Call{Arguments: json.RawMessage(args[i%len(args)])}); !res.Success {
			t.Fatalf("%s: %s", name, res.Error)
		}
	}
	for i := range len(args) { // warm up: the first read of a file is the one that records it
		run(i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		run(i)
	}
	runtime.ReadMemStats(&after)
	return int(after.TotalAlloc-before.TotalAlloc) / n
}
