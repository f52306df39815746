// Command wirecmp compares two sidecar binaries — a base and a change to
// the wire — on the rows of the wire's performance figures, in interleaved
// rounds (each round measures both, in alternating order, so a load that
// changes during the run changes both columns alike):
//
//   - spawn → ready marker (median);
//   - system.ping round trip, sequential (p50);
//   - system.ping, 64 in flight (calls/s), and its ratio to a bare
//     newline-JSON echo loop measured in the same round (target ≥ 50%);
//   - read_file of a 4 KiB file, sequential p50 (target ≤ 200 µs) and 64 in
//     flight (calls/s), and the latter's ratio to the reference MCP
//     filesystem server's read_text_file in the same round (target ≥ 3×).
//
// go build -o /tmp/wirecmp ./bench/wirecmp && go build -o /tmp/echo ./bench/core/echo &&
// /tmp/wirecmp -base OLD -head NEW -echo /tmp/echo -mcp "node …/server-filesystem/dist/index.js"
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

type figures struct {
	spawn, pingRTT, readRTT []time.Duration
	pingRate, readRate      []float64
	pingRatio, readRatio    []float64
}

func main() {
	base := flag.String("base", "", "base sidecar binary")
	head := flag.String("head", "", "changed sidecar binary")
	echo := flag.String("echo", "", "newline-JSON echo program (bench/core/echo)")
	mcp := flag.String("mcp", "", "reference MCP server command (space separated), empty to skip")
	rounds := flag.Int("rounds", 5, "interleaved rounds")
	flag.Parse()
	dir, _ := os.MkdirTemp("", "wirecmp-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "read4k.txt")
	line := "a line of text, 64 bytes long, as source files often have....\n"
	must(os.WriteFile(path, []byte(strings.Repeat(line, 64)), 0o644))

	bins := []string{*base, *head}
	figs := make([]figures, 2)
	for r := range *rounds {
		ec := start(exec.Command(*echo))
		var ref *benchkit.Proc
		refArgs := map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": path}}
		if *mcp != "" {
			args := append(strings.Fields(*mcp), dir)
			ref = start(exec.Command(args[0], args[1:]...))
			must(ref.MCPHandshake())
			must(ref.MCPTool("read_text_file", map[string]any{"path": path}))
		}
		for k := range 2 {
			i := (r + k) % 2 // alternate which goes first
			measure(&figs[i], bins[i], dir, path, ec, ref, refArgs)
		}
		ec.Close()
		if ref != nil {
			ref.Close()
		}
	}
	fmt.Printf("%d interleaved rounds\n", *rounds)
	fmt.Printf("%-28s %14s %14s\n", "row", "base", "head")
	durRow := func(name string, f func(figures) time.Duration) {
		fmt.Printf("%-28s %14s %14s\n", name, f(figs[0]).Round(time.Microsecond), f(figs[1]).Round(time.Microsecond))
	}
	numRow := func(name, format string, f func(figures) float64) {
		fmt.Printf("%-28s %14s %14s\n", name, fmt.Sprintf(format, f(figs[0])), fmt.Sprintf(format, f(figs[1])))
	}
	durRow("spawn → ready (median)", func(f figures) time.Duration { return benchkit.Median(f.spawn) })
	durRow("ping sequential p50", func(f figures) time.Duration { return benchkit.Percentile(f.pingRTT, 50) })
	numRow("ping 64 in flight calls/s", "%.0f", func(f figures) float64 { return median(f.pingRate) })
	numRow("  ÷ echo loop (≥ 50%)", "%.0f%%", func(f figures) float64 { return 100 * median(f.pingRatio) })
	durRow("read_file 4 KiB seq p50", func(f figures) time.Duration { return benchkit.Percentile(f.readRTT, 50) })
	numRow("read_file 64 in flight /s", "%.0f", func(f figures) float64 { return median(f.readRate) })
	if *mcp != "" {
		numRow("  ÷ server-filesystem (≥ 3×)", "%.2f×", func(f figures) float64 { return median(f.readRatio) })
	}
}

// measure runs one round of every row on bin.
func measure(f *figures, bin, dir, path string, ec, ref *benchkit.Proc, refArgs map[string]any) {
	side := func() *exec.Cmd { return exec.Command(bin, "--cwd", dir, "--log-level", "error") }
	for range 10 {
		p, d, err := benchkit.StartReady(side())
		must(err)
		p.Close()
		f.spawn = append(f.spawn, d)
	}
	sc := start(side())
	defer sc.Close()
	must(sc.AwaitNotification("lifecycle.ready"))
	must1(sc.Call("system.ping", nil))
	f.pingRTT = append(f.pingRTT, must1(sc.RoundTrips(600, "system.ping", nil))...)
	ours := must1(sc.Pipelined(6000, 64, "system.ping", nil))
	theirs := must1(ec.Pipelined(6000, 64, "system.ping", nil))
	f.pingRate, f.pingRatio = append(f.pingRate, ours), append(f.pingRatio, ours/theirs)

	args := map[string]any{"name": "read_file", "arguments": map[string]any{"path": path}}
	must1(sc.Invoke("read_file", map[string]any{"path": path}))
	f.readRTT = append(f.readRTT, must1(sc.RoundTrips(400, "tool.invoke", args))...)
	rate := must1(sc.Pipelined(4000, 64, "tool.invoke", args))
	f.readRate = append(f.readRate, rate)
	if ref != nil {
		f.readRatio = append(f.readRatio, rate/must1(ref.Pipelined(4000, 64, "tools/call", refArgs)))
	}
}

func start(cmd *exec.Cmd) *benchkit.Proc { return must1(benchkit.Start(cmd)) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[(len(s)-1)/2]
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func must1[T any](v T, err error) T {
	must(err)
	return v
}
