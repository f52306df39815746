// Command core measures the sidecar's core figures side by side
// with their references, driving every process over the same kind of pipe
// with the same client code (package benchkit):
//
//   - spawn → ready marker, against a Go program that only writes one stderr
//     line (the floor), the same program linking every package outside
//     this module that the sidecar imports (their init runs: what the
//     dependencies cost alone) and the reference MCP filesystem server
//     from npm (spawn → initialize reply);
//   - system.ping round trips, sequentially (p50/p99) and 64 in flight
//     (calls/s), against a bare newline-JSON echo loop;
//   - idle RSS after tool.list, against the reference server after
//     tools/list;
//   - read_file of a 4 KiB file against the reference server's
//     read_text_file (readfile.go);
//   - peak RSS under a flood of requests with every slot busy (flood.go)
//     and replies with a stderr nobody reads (stderr.go).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

func main() {
	bin := flag.String("bin", "bin/steerable-sidecar", "sidecar binary")
	floor := flag.String("floor", "", "floor program (writes one stderr line)")
	depsFloor := flag.String("deps-floor", "", "the floor linking the sidecar's dependencies, empty to skip")
	echo := flag.String("echo", "", "newline-JSON echo program")
	mcp := flag.String("mcp", "", "reference MCP server command (space separated), empty to skip")
	runs := flag.Int("runs", 30, "spawn runs")
	pings := flag.Int("pings", 3000, "sequential pings")
	calls := flag.Int("calls", 30000, "pipelined calls")
	flag.Parse()
	dir, _ := os.MkdirTemp("", "bench-core-")
	defer os.RemoveAll(dir)

	fmt.Println("## core: start-up, round trips, memory")
	fmt.Println()
	side := func() *exec.Cmd { return exec.Command(*bin, "--cwd", dir, "--log-level", "error") }
	ready := spawnTimes(*runs, side, readyLine)
	fl := spawnTimes(*runs, func() *exec.Cmd { return exec.Command(*floor) }, readyLine)
	fmt.Printf("%-44s %10s %10s %10s\n", "spawn → ready", "median", "p10", "p90")
	row("steerable-sidecar (target ≤ 2× the floor)", ready)
	row("floor: Go program writing one line", fl)
	var dfl []time.Duration
	if *depsFloor != "" { // what the dependencies' init and size cost alone
		dfl = spawnTimes(*runs, func() *exec.Cmd { return exec.Command(*depsFloor) }, readyLine)
		row("floor linking the sidecar's dependencies", dfl)
	}
	var ref []time.Duration
	if *mcp != "" {
		args := append(strings.Fields(*mcp), dir)
		ref = spawnTimes(*runs, func() *exec.Cmd { return exec.Command(args[0], args[1:]...) }, initializeReply)
		row("server-filesystem (npm): → initialize reply", ref)
	} else {
		fmt.Println("server-filesystem (npm): MISS (npm package not installed)")
	}
	fmt.Printf("ratio: sidecar/floor %.2f×", ratio(ready, fl))
	if dfl != nil {
		fmt.Printf(", dependencies' floor/floor %.2f×", ratio(dfl, fl))
	}
	if ref != nil {
		fmt.Printf(", server-filesystem/sidecar %.0f×", ratio(ref, ready))
	}
	fmt.Printf("; target ≤ 2× the floor: %s\n\n", verdict(ratio(ready, fl) <= 2))

	sc := start(side())
	must(sc.AwaitNotification("lifecycle.ready"))
	health := string(must1(sc.Call("system.ping", nil)))
	ec := start(exec.Command(*echo))
	fc := start(exec.Command(*echo, health))
	var rtt, ertt []time.Duration
	var ours, theirs, same []float64
	for range pingRounds { // interleaved: load on the machine changes every column alike
		rtt = append(rtt, must1(sc.RoundTrips(*pings/pingRounds, "system.ping", nil))...)
		ertt = append(ertt, must1(ec.RoundTrips(*pings/pingRounds, "system.ping", nil))...)
		ours = append(ours, must1(sc.Pipelined(*calls/pingRounds, 64, "system.ping", nil)))
		theirs = append(theirs, must1(ec.Pipelined(*calls/pingRounds, 64, "system.ping", nil)))
		same = append(same, must1(fc.Pipelined(*calls/pingRounds, 64, "system.ping", nil)))
	}
	fmt.Printf("%-44s %10s %10s\n", "system.ping round trip (sequential)", "p50", "p99")
	fmt.Printf("%-44s %10s %10s\n", "steerable-sidecar", fmtDur(benchkit.Percentile(rtt, 50)), fmtDur(benchkit.Percentile(rtt, 99)))
	fmt.Printf("%-44s %10s %10s\n\n", "bare newline-JSON echo loop", fmtDur(benchkit.Percentile(ertt, 50)), fmtDur(benchkit.Percentile(ertt, 99)))

	fmt.Printf("%-44s %12s\n", fmt.Sprintf("system.ping, 64 in flight (%d rounds)", pingRounds), "calls/s")
	fmt.Printf("%-44s %12.0f\n", "steerable-sidecar", median(ours))
	fmt.Printf("%-44s %12.0f\n", "bare newline-JSON echo loop", median(theirs))
	fmt.Printf("%-44s %12.0f\n", fmt.Sprintf("echo loop answering the same %d-byte Health", len(health)), median(same))
	bare, sameReply := median(pairedRatios(ours, theirs)), median(pairedRatios(ours, same))
	fmt.Printf("ratio (median of the rounds' ratios) %.0f%% of the echo loop (target ≥ 50%%: %s); %.0f%% of the echo loop with the same reply\n\n",
		100*bare, verdict(bare >= 0.5), 100*sameReply)
	ec.Close()
	fc.Close()
	sc.Close()

	// Idle memory of a fresh process: start, list the tools, settle.
	idle := start(side())
	must(idle.AwaitNotification("lifecycle.ready"))
	must1(idle.Call("tool.list", map[string]any{"view": "model"}))
	time.Sleep(500 * time.Millisecond)
	rss := must1(benchkit.RSS(idle.Pid()))
	idle.Close()
	fmt.Printf("%-44s %12s\n", "idle RSS after tool.list", "MiB")
	fmt.Printf("%-44s %12.1f\n", "steerable-sidecar (target ≤ 15 MiB)", float64(rss)/(1<<20))
	if *mcp != "" {
		args := append(strings.Fields(*mcp), dir)
		m := start(exec.Command(args[0], args[1:]...))
		must(m.MCPHandshake())
		must1(m.Call("tools/list", nil))
		time.Sleep(300 * time.Millisecond)
		fmt.Printf("%-44s %12.1f\n", "server-filesystem (npm) after tools/list", float64(must1(benchkit.RSS(m.Pid())))/(1<<20))
		m.Close()
	}
	fmt.Printf("target: %s\n\n", verdict(rss <= 15<<20))

	var mcpCmd []string
	if *mcp != "" {
		mcpCmd = strings.Fields(*mcp)
	}
	benchReadFile(side, mcpCmd, dir)
	benchFlood(*bin, dir)
	benchStderrUnread(*bin, dir)
}

// pingRounds interleave the sidecar and its references.
const pingRounds = 5

// spawnTimes starts a fresh process runs times and collects the time from
// the start to the moment ready reports (the process is stopped after the
// clock is read).
func spawnTimes(runs int, mk func() *exec.Cmd, ready func(*exec.Cmd) (time.Duration, error)) []time.Duration {
	var out []time.Duration
	for i := 0; i < runs; i++ {
		d, err := ready(mk())
		if err != nil {
			fmt.Fprintf(os.Stderr, "spawn: %v\n", err)
			os.Exit(1)
		}
		out = append(out, d)
	}
	return out
}

// readyLine measures from the start to the ready line on stderr.
func readyLine(cmd *exec.Cmd) (time.Duration, error) {
	p, d, err := benchkit.StartReady(cmd)
	if err != nil {
		return 0, err
	}
	p.Close()
	return d, nil
}

// initializeReply measures from the start to the MCP initialize reply.
func initializeReply(cmd *exec.Cmd) (time.Duration, error) {
	t0 := time.Now()
	p := start(cmd)
	defer p.Close()
	if err := p.MCPInitialize(); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

func start(cmd *exec.Cmd) *benchkit.Proc {
	return must1(benchkit.Start(cmd))
}

func ratio(a, b []time.Duration) float64 {
	return float64(benchkit.Median(a)) / float64(benchkit.Median(b))
}

func row(name string, d []time.Duration) {
	fmt.Printf("%-44s %10s %10s %10s\n", name, fmtDur(benchkit.Median(d)), fmtDur(benchkit.Percentile(d, 10)), fmtDur(benchkit.Percentile(d, 90)))
}

// fmtDur is the compact form of this table: "67µs", "8.35ms".
func fmtDur(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

// verdict is "met" or "MISS", the words of this report.
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISS"
}

func must(err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench/core: %v\n", err)
		os.Exit(1)
	}
}

func must1[T any](v T, err error) T {
	must(err)
	return v
}
