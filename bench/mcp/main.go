// Command mcp measures `steerable-sidecar mcp` for `make bench` (section
// 80-mcp) side by side with the reference MCP filesystem server
// (@modelcontextprotocol/server-filesystem from npm), and with -before an
// older binary's mcp, all driven by the same client (package benchkit) in
// the same run, interleaved: each of -rounds rounds measures every server
// in turn, and each figure is the median of the rounds.
//
//   - spawn → initialize reply (median of -runs);
//   - idle RSS after initialize and tools/list;
//   - read_file of Go source of 4 KiB and of 100 KB (the reference's
//     read_text_file): the bytes of the MCP result, and of its text blocks,
//     what most clients show the model;
//   - read_file of a 4 KiB file, sequential p50/p99, and replies per second
//     with 64 calls in flight, with the server's CPU time per call meanwhile
//     (less bent by a shared machine);
//   - the binary's size, and spawn → ready marker of `serve` (the SDK must
//     not slow serve's start-up; -before compares the older binary).
//
// It prints one table; a missed target reads MISS and never fails the run.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	before := flag.String("before", "", "an older steerable-sidecar binary to compare with ('' skips)")
	runs := flag.Int("runs", 20, "spawns of each server per round")
	seq := flag.Int("seq", 2000, "sequential read_file calls per round")
	piped := flag.Int("piped", 20000, "read_file calls for the 64-in-flight figure, per round")
	rounds := flag.Int("rounds", 1, "interleaved rounds (each figure is their median)")
	serveStartup := flag.Bool("startup", true, "also print the binary size and serve's start-up")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-mcp-")
	must(err)
	defer os.RemoveAll(dir)
	dir, err = filepath.EvalSymlinks(dir)
	must(err)
	file := filepath.Join(dir, "page.txt")
	must(os.WriteFile(file, []byte(strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef012345678901234\n", 64)), 0o644))
	sources := writeSources(dir)

	mcpOf := func(b string) func() *exec.Cmd {
		return func() *exec.Cmd { return exec.Command(b, "mcp", "--cwd", dir, "--log-level", "error") }
	}
	servers := []server{{"steerable-sidecar mcp", mcpOf(*bin), "read_file"}}
	if *before != "" {
		servers = append(servers, server{"-before mcp", mcpOf(*before), "read_file"})
	}
	if *ref != "" {
		servers = append(servers, server{"server-filesystem (npm)", func() *exec.Cmd {
			return exec.Command("node", *ref, dir)
		}, "read_text_file"})
	}
	all := make([][]figures, len(servers))
	for r := range *rounds {
		for i, s := range servers {
			fmt.Fprintf(os.Stderr, "round %d/%d: %s\n", r+1, *rounds, s.name)
			all[i] = append(all[i], measure(s, file, sources, *runs, *seq, *piped))
		}
	}
	figs := make([]figures, len(servers))
	for i := range servers {
		figs[i] = medianOf(all[i])
	}
	report(figs, sources, *ref != "", *rounds)
	if *serveStartup {
		fmt.Println()
		startup(*bin, *before, dir, *runs)
	}
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
	payloads []payload // per source file
}

func measure(s server, file string, sources []sourceFile, runs, seq, piped int) figures {
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
	for _, src := range sources {
		f.payloads = append(f.payloads, measurePayload(p, s.tool, src))
	}

	args := map[string]any{"path": file}
	must(p.MCPTool(s.tool, args)) // a failing call would time nothing
	params := map[string]any{"name": s.tool, "arguments": args}
	rtt := must1(p.RoundTrips(seq, "tools/call", params))
	f.p50, f.p99 = benchkit.Percentile(rtt, 50), benchkit.Percentile(rtt, 99)
	cpu0 := must1(benchkit.CPUTime(p.Pid(), false))
	f.perSec = must1(p.Pipelined(piped, 64, "tools/call", params))
	f.cpu = (must1(benchkit.CPUTime(p.Pid(), false)) - cpu0) / time.Duration(piped)
	f.ping = benchkit.Median(must1(p.RoundTrips(seq, "ping", nil)))
	f.pingRate = must1(p.Pipelined(piped, 64, "ping", nil))
	return f
}

// medianOf is each figure's median over the rounds (the payloads do not
// vary: the first round's).
func medianOf(rs []figures) figures {
	med := func(get func(figures) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		slices.Sort(v)
		return v[(len(v)-1)/2]
	}
	dur := func(get func(figures) time.Duration) time.Duration {
		return time.Duration(med(func(f figures) float64 { return float64(get(f)) }))
	}
	return figures{
		name:     rs[0].name,
		init:     dur(func(f figures) time.Duration { return f.init }),
		rss:      int64(med(func(f figures) float64 { return float64(f.rss) })),
		p50:      dur(func(f figures) time.Duration { return f.p50 }),
		p99:      dur(func(f figures) time.Duration { return f.p99 }),
		perSec:   med(func(f figures) float64 { return f.perSec }),
		cpu:      dur(func(f figures) time.Duration { return f.cpu }),
		ping:     dur(func(f figures) time.Duration { return f.ping }),
		pingRate: med(func(f figures) float64 { return f.pingRate }),
		payloads: rs[0].payloads,
	}
}

// initializeReply is the time from the start to the initialize reply.
func initializeReply(cmd *exec.Cmd) time.Duration {
	t0 := time.Now()
	p := must1(benchkit.Start(cmd))
	defer p.Close()
	must(p.MCPInitialize())
	return time.Since(t0)
}

// report prints one row per metric: ours, the -before binary's when
// measured, the reference's, ours against the reference, the target.
func report(figs []figures, sources []sourceFile, hasRef bool, rounds int) {
	ours := figs[0]
	r := figures{init: 1, rss: 1, p50: 1, p99: 1, perSec: 1, cpu: 1, ping: 1, pingRate: 1}
	if hasRef {
		r = figs[len(figs)-1]
	}
	header := []string{fmt.Sprintf("mcp (median of %d rounds)", rounds)}
	for _, f := range figs {
		header = append(header, f.name)
	}
	if !hasRef {
		header = append(header, "server-filesystem (npm)")
	}
	header = append(header, "ratio", "target")
	widths := []int{40}
	for range header[1 : len(header)-2] {
		widths = append(widths, 24)
	}
	widths = append(widths, 8, 24)
	line := func(cols []string, verdict string) {
		for i, c := range cols {
			fmt.Printf("%-*s ", widths[i], c)
		}
		fmt.Println(verdict)
	}
	line(header, "")
	fmt.Println(strings.Repeat("-", 40+25*(len(header)-3)+34))
	row := func(metric string, val func(figures) string, ratio, target string, ok bool) {
		cols := []string{metric}
		for _, f := range figs {
			cols = append(cols, val(f))
		}
		if !hasRef {
			cols = append(cols, "not installed (npm)")
			ratio = "-"
		}
		line(append(cols, ratio, target), benchkit.Verdict(ok))
	}
	row("spawn → initialize reply (median)", func(f figures) string { return benchkit.Millis(f.init) },
		fmt.Sprintf("%.0f×", float64(r.init)/float64(ours.init)), "≤ 10 ms (≥ 40× faster)",
		ours.init <= 10*time.Millisecond && (!hasRef || r.init >= 40*ours.init))
	row("idle RSS after tools/list", func(f figures) string { return mib(f.rss) },
		fmt.Sprintf("%.2f×", float64(ours.rss)/float64(r.rss)), "≤ 15 MiB", ours.rss <= 15<<20)
	for i, src := range sources {
		row(fmt.Sprintf("read_file %s source: MCP result", src.label), func(f figures) string { return bytesOf(f.payloads[i].result) },
			fmt.Sprintf("%.2f×", float64(ours.payloads[i].result)/float64(r.payloadOr(i).result)), "-", true)
		row(fmt.Sprintf("read_file %s source: text shown", src.label), func(f figures) string { return bytesOf(f.payloads[i].text) },
			fmt.Sprintf("%.2f×", float64(ours.payloads[i].text)/float64(r.payloadOr(i).text)),
			fmt.Sprintf("≤ %s +5%% + header", bytesOf(src.size)), shownTarget(ours.payloads[i], src))
	}
	row("read_file 4 KiB, sequential p50", func(f figures) string { return micros(f.p50) },
		fmt.Sprintf("%.1f×", float64(r.p50)/float64(ours.p50)), "≤ 200 µs", ours.p50 <= 200*time.Microsecond)
	row("read_file 4 KiB, sequential p99", func(f figures) string { return micros(f.p99) },
		fmt.Sprintf("%.1f×", float64(r.p99)/float64(ours.p99)), "-", true)
	row("read_file 4 KiB, 64 in flight", func(f figures) string { return fmt.Sprintf("%.0f /s", f.perSec) },
		fmt.Sprintf("%.1f×", ours.perSec/r.perSec), "≥ 3× the reference", !hasRef || ours.perSec >= 3*r.perSec)
	row("read_file 4 KiB, CPU per call", func(f figures) string { return micros(f.cpu) },
		fmt.Sprintf("%.1f×", float64(r.cpu)/float64(ours.cpu)), "-", true)
	row("ping (protocol floor), p50", func(f figures) string { return micros(f.ping) },
		fmt.Sprintf("%.1f×", float64(r.ping)/float64(ours.ping)), "-", true)
	row("ping, 64 in flight", func(f figures) string { return fmt.Sprintf("%.0f /s", f.pingRate) },
		fmt.Sprintf("%.1f×", ours.pingRate/r.pingRate), "-", true)
}

// payloadOr is the i-th payload, or one byte each when not measured (no
// reference), so that ratios stay finite.
func (f figures) payloadOr(i int) payload {
	if i < len(f.payloads) {
		return f.payloads[i]
	}
	return payload{result: 1, text: 1}
}

func bytesOf(n int) string { return fmt.Sprintf("%d B", n) }

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
