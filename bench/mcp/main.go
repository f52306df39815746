// Command mcp measures `steerable-sidecar mcp` for `make bench` (section
// 80-mcp) side by side with the reference MCP filesystem server
// (@modelcontextprotocol/server-filesystem from npm), both driven by the
// same client (package benchkit) in the same run:
//
//   - spawn → initialize reply (median of -runs);
//   - idle RSS after initialize and tools/list;
//   - read_file of a 4 KiB file (the reference's read_text_file), sequential
//     p50/p99, and replies per second with 64 calls in flight, with the
//     server's CPU time per call meanwhile (less bent by a shared machine);
//   - the binary's size, and spawn → ready marker of `serve` (the SDK must
//     not slow serve's start-up; -before compares an older binary).
//
// It prints one table; a missed target reads MISS and never fails the run.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

type server struct {
	name string
	cmd  func() *exec.Cmd
	tool string // the tool that reads a file
}

func main() {
	bin := flag.String("bin", os.Getenv("BIN"), "the steerable-sidecar binary")
	ref := flag.String("mcp", "", "dist/index.js of @modelcontextprotocol/server-filesystem ('' skips the reference)")
	before := flag.String("before", "", "an older steerable-sidecar binary to compare serve's start-up with ('' skips)")
	runs := flag.Int("runs", 20, "spawns of each server")
	seq := flag.Int("seq", 2000, "sequential read_file calls")
	piped := flag.Int("piped", 20000, "read_file calls for the 64-in-flight figure")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-mcp-")
	must(err)
	defer os.RemoveAll(dir)
	dir, err = filepath.EvalSymlinks(dir)
	must(err)
	file := filepath.Join(dir, "page.txt")
	must(os.WriteFile(file, []byte(strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef012345678901234\n", 64)), 0o644))

	ours := server{"steerable-sidecar mcp", func() *exec.Cmd {
		return exec.Command(*bin, "mcp", "--cwd", dir, "--log-level", "error")
	}, "read_file"}
	servers := []server{ours}
	if *ref != "" {
		servers = append(servers, server{"server-filesystem (npm)", func() *exec.Cmd {
			return exec.Command("node", *ref, dir)
		}, "read_text_file"})
	}
	var figs []figures
	for _, s := range servers {
		figs = append(figs, measure(s, file, *runs, *seq, *piped))
	}
	report(figs)
	fmt.Println()
	startup(*bin, *before, dir, *runs)
}

// figures are one server's measurements.
type figures struct {
	name     string
	init     time.Duration
	rss      int64
	p50, p99 time.Duration
	perSec   float64
	cpu      time.Duration // the server's CPU time per call, 64 in flight
	ping     time.Duration // the protocol floor: ping p50
	pingRate float64
}

func measure(s server, file string, runs, seq, piped int) figures {
	f := figures{name: s.name}
	var inits []time.Duration
	for range runs {
		inits = append(inits, initializeReply(s.cmd()))
	}
	f.init = benchkit.Median(inits)

	p := must1(benchkit.Start(s.cmd()))
	defer p.Close()
	must(p.MCPHandshake())
	must1(p.Call("tools/list", nil))
	time.Sleep(300 * time.Millisecond)
	f.rss = must1(benchkit.RSS(p.Pid()))

	args := map[string]any{"path": file}
	must(p.MCPTool(s.tool, args)) // a failing call would time nothing
	params := map[string]any{"name": s.tool, "arguments": args}
	rtt := must1(p.RoundTrips(seq, "tools/call", params))
	f.p50, f.p99 = benchkit.Percentile(rtt, 50), benchkit.Percentile(rtt, 99)
	cpu0 := must1(benchkit.CPUTime(p.Pid()))
	f.perSec = must1(p.Pipelined(piped, 64, "tools/call", params))
	f.cpu = (must1(benchkit.CPUTime(p.Pid())) - cpu0) / time.Duration(piped)
	f.ping = benchkit.Median(must1(p.RoundTrips(seq, "ping", nil)))
	f.pingRate = must1(p.Pipelined(piped, 64, "ping", nil))
	return f
}

// initializeReply is the time from the start to the initialize reply.
func initializeReply(cmd *exec.Cmd) time.Duration {
	t0 := time.Now()
	p := must1(benchkit.Start(cmd))
	defer p.Close()
	must(p.MCPInitialize())
	return time.Since(t0)
}

func report(figs []figures) {
	ours := figs[0]
	var ref *figures
	if len(figs) > 1 {
		ref = &figs[1]
	}
	fmt.Printf("%-34s %-22s %-26s %-8s %-22s %s\n", "mcp", "steerable-sidecar mcp", "server-filesystem (npm)", "ratio", "target", "")
	fmt.Println(strings.Repeat("-", 122))
	refCol := func(v string) string {
		if ref == nil {
			return "not installed (npm)"
		}
		return v
	}
	row := func(metric, o, r, ratio, target string, ok bool) {
		if ref == nil {
			ratio = "-"
		}
		fmt.Printf("%-34s %-22s %-26s %-8s %-22s %s\n", metric, o, refCol(r), ratio, target, benchkit.Verdict(ok))
	}
	r := figures{init: 1, rss: 1, p50: 1, p99: 1, perSec: 1, cpu: 1, ping: 1, pingRate: 1}
	if ref != nil {
		r = *ref
	}
	rInit, rRSS, rP50, rP99, rRate := r.init, r.rss, r.p50, r.p99, r.perSec
	row("spawn → initialize reply (median)", benchkit.Millis(ours.init), benchkit.Millis(rInit),
		fmt.Sprintf("%.0f×", float64(rInit)/float64(ours.init)), "≤ 10 ms (≥ 40× faster)",
		ours.init <= 10*time.Millisecond && (ref == nil || rInit >= 40*ours.init))
	row("idle RSS after tools/list", mib(ours.rss), mib(rRSS), fmt.Sprintf("%.2f×", float64(ours.rss)/float64(rRSS)),
		"≤ 15 MiB", ours.rss <= 15<<20)
	row("read_file 4 KiB, sequential p50", micros(ours.p50), micros(rP50), fmt.Sprintf("%.1f×", float64(rP50)/float64(ours.p50)),
		"≤ 200 µs", ours.p50 <= 200*time.Microsecond)
	row("read_file 4 KiB, sequential p99", micros(ours.p99), micros(rP99), fmt.Sprintf("%.1f×", float64(rP99)/float64(ours.p99)),
		"-", true)
	row("read_file 4 KiB, 64 in flight", fmt.Sprintf("%.0f /s", ours.perSec), fmt.Sprintf("%.0f /s", rRate),
		fmt.Sprintf("%.1f×", ours.perSec/rRate), "≥ 3× the reference", ref == nil || ours.perSec >= 3*rRate)
	row("read_file 4 KiB, CPU per call", micros(ours.cpu), micros(r.cpu), fmt.Sprintf("%.1f×", float64(r.cpu)/float64(ours.cpu)),
		"-", true)
	row("ping (protocol floor), p50", micros(ours.ping), micros(r.ping), fmt.Sprintf("%.1f×", float64(r.ping)/float64(ours.ping)), "-", true)
	row("ping, 64 in flight", fmt.Sprintf("%.0f /s", ours.pingRate), fmt.Sprintf("%.0f /s", r.pingRate),
		fmt.Sprintf("%.1f×", ours.pingRate/r.pingRate), "-", true)
}

// startup prints the binary's size and serve's spawn → ready marker, with an
// older binary beside it when given. The two are spawned alternately, so
// the machine's load (shared here) weighs on both alike.
func startup(bin, before, dir string, runs int) {
	fmt.Printf("%-34s %-22s %-26s\n", "serve start-up", "this binary", "-before binary")
	fmt.Println(strings.Repeat("-", 84))
	size := func(b string) string {
		fi, err := os.Stat(b)
		if err != nil {
			return "-"
		}
		return mib(fi.Size())
	}
	spawn := func(b string) time.Duration {
		p, d, err := benchkit.StartReady(exec.Command(b, "--cwd", dir, "--log-level", "error"))
		must(err)
		p.Close()
		return d
	}
	var now, then []time.Duration
	for range 2 * runs {
		now = append(now, spawn(bin))
		if before != "" {
			then = append(then, spawn(before))
		}
	}
	old := "-"
	if before != "" {
		old = benchkit.Millis(benchkit.Median(then))
	}
	fmt.Printf("%-34s %-22s %-26s\n", "binary size", size(bin), size(before))
	fmt.Printf("%-34s %-22s %-26s\n", "serve spawn → ready (median)", benchkit.Millis(benchkit.Median(now)), old)
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func micros(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/mcp:", err)
		os.Exit(1)
	}
}

func must1[T any](v T, err error) T {
	must(err)
	return v
}
