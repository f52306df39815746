package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/runcode"
)

// BenchmarkRunCodeNestedRead is the cost of one nested tools.read_file of
// a 4 KiB file through the whole pipeline (bridge, dispatcher, read_file,
// read state), timed by the program itself so the interpreter's start-up
// is left out; the in-process part of what `make bench` reports through
// the binary.
func BenchmarkRunCodeNestedRead(b *testing.B) {
	if len(runcode.Candidates(os.Getenv("PATH"))) == 0 {
		b.Skip("no python3 on PATH")
	}
	h := newRunCodeHarness(b, nil)
	os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte(strings.Repeat("0123456789abcde\n", 256)), 0o644)
	const reads = 30
	code := "import time\nt = time.perf_counter()\nfor i in range(30):\n    assert tools.read_file(path='f.txt')['success']\nreturn time.perf_counter() - t"
	var total time.Duration
	for range b.N {
		res := h.run(b, "bench", map[string]any{"description": "reads", "code": code})
		v, err := strconv.ParseFloat(fmt.Sprint(res.Data["value"]), 64)
		if !res.Success || err != nil {
			b.Fatalf("%v: %+v", err, res)
		}
		total += time.Duration(v * float64(time.Second))
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*reads), "ns/call")
}
