package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

// readFileRounds interleave the two servers: a machine whose load changes
// during the run changes both columns alike.
const (
	readFileRounds   = 7
	readFileSeq      = 400  // sequential calls per server and round
	readFilePipeline = 4000 // pipelined calls per server and round
)

// benchReadFile: read_file of a 4 KiB text file by path — the call an agent
// makes most — against the reference MCP filesystem server's read_text_file
// of the same file, through the same client, in one run of interleaved
// rounds: sequential p50/p99 (all rounds' samples) and calls/s with 64 in
// flight (median of the rounds).
func benchReadFile(side func() *exec.Cmd, mcp []string, dir string) {
	path := filepath.Join(dir, "read4k.txt")
	line := "a line of text, 64 bytes long, as source files often have....\n"
	must(os.WriteFile(path, []byte(strings.Repeat(line, 64)), 0o644))
	ours := start(side())
	must(ours.AwaitNotification("lifecycle.ready"))
	defer ours.Close()
	oursArgs := map[string]any{"name": "read_file", "arguments": map[string]any{"path": path}}
	must1(ours.Invoke("read_file", map[string]any{"path": path})) // it works, and is warm
	var ref *benchkit.Proc
	refArgs := map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": path}}
	if mcp != nil {
		ref = start(exec.Command(mcp[0], append(mcp[1:], dir)...))
		defer ref.Close()
		must(ref.MCPHandshake())
		must(ref.MCPTool("read_text_file", map[string]any{"path": path}))
	}
	var oSeq, rSeq []time.Duration
	var oRate, rRate []float64
	for range readFileRounds {
		oSeq = append(oSeq, must1(ours.RoundTrips(readFileSeq, "tool.invoke", oursArgs))...)
		oRate = append(oRate, must1(ours.Pipelined(readFilePipeline, 64, "tool.invoke", oursArgs)))
		if ref != nil {
			rSeq = append(rSeq, must1(ref.RoundTrips(readFileSeq, "tools/call", refArgs))...)
			rRate = append(rRate, must1(ref.Pipelined(readFilePipeline, 64, "tools/call", refArgs)))
		}
	}
	fmt.Printf("%-44s %10s %10s %12s\n", "read_file of a 4 KiB file ("+fmt.Sprint(readFileRounds)+" rounds)", "p50", "p99", "64 in flight/s")
	fmt.Printf("%-44s %10s %10s %12.0f\n", "steerable-sidecar read_file", fmtDur(benchkit.Percentile(oSeq, 50)), fmtDur(benchkit.Percentile(oSeq, 99)), median(oRate))
	if ref == nil {
		fmt.Println("server-filesystem (npm): MISS (npm package not installed)")
		return
	}
	fmt.Printf("%-44s %10s %10s %12.0f\n", "server-filesystem read_text_file", fmtDur(benchkit.Percentile(rSeq, 50)), fmtDur(benchkit.Percentile(rSeq, 99)), median(rRate))
	p50 := benchkit.Percentile(oSeq, 50)
	r := pairedRatios(oRate, rRate)
	fmt.Printf("ratio: p50 %.2f× faster, 64 in flight %.2f× the calls/s (median of the rounds' ratios, %.2f–%.2f×); targets p50 ≤ 200µs: %s, ≥ 3× calls/s: %s\n\n",
		float64(benchkit.Percentile(rSeq, 50))/float64(p50), median(r), slices.Min(r), slices.Max(r),
		verdict(p50 <= 200*time.Microsecond), verdict(median(r) >= 3))
}

// pairedRatios are a/b round by round: the two were measured back to
// back, so a load that changes between rounds cancels out of each ratio,
// where it would not out of the ratio of two medians.
func pairedRatios(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] / b[i]
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[(len(s)-1)/2]
}
