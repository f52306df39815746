// Command core measures the sidecar's core figures (issue 2) side by side
// with their references, driving every process over the same kind of pipe
// with the same client code:
//
//   - spawn → ready marker, against a Go program that only writes one stderr
//     line (the floor) and the reference MCP filesystem server from npm
//     (spawn → initialize reply);
//   - system.ping round trips, sequentially (p50/p99) and 64 in flight
//     (calls/s), against a bare newline-JSON echo loop;
//   - idle RSS after tool.list, against the reference server after
//     tools/list.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/steerable-sidecar", "sidecar binary")
	floor := flag.String("floor", "", "floor program (writes one stderr line)")
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
	ready := spawnTimes(*runs, side, stderrLine("__SIDECAR_READY__:"))
	fl := spawnTimes(*runs, func() *exec.Cmd { return exec.Command(*floor) }, stderrLine("__SIDECAR_READY__:"))
	fmt.Printf("%-44s %10s %10s %10s\n", "spawn → ready", "median", "p10", "p90")
	row("steerable-sidecar (target ≤ 10 ms)", ready)
	row("floor: Go program writing one line", fl)
	var ref []time.Duration
	if *mcp != "" {
		args := append(strings.Fields(*mcp), dir)
		ref = spawnTimes(*runs, func() *exec.Cmd { return exec.Command(args[0], args[1:]...) }, initializeReply)
		row("server-filesystem (npm): → initialize reply", ref)
	} else {
		fmt.Println("server-filesystem (npm): MISS (npm package not installed)")
	}
	fmt.Printf("ratio: sidecar/floor %.2f×", ratio(ready, fl))
	if ref != nil {
		fmt.Printf(", server-filesystem/sidecar %.0f×", ratio(ref, ready))
	}
	fmt.Printf("; target %s\n\n", verdict(median(ready) <= 10*time.Millisecond))

	sc := start(side())
	sc.awaitNotification("lifecycle.ready")
	rtt := sc.sequential(*pings, `"method":"system.ping"`)
	fmt.Printf("%-44s %10s %10s\n", "system.ping round trip (sequential)", "p50", "p99")
	fmt.Printf("%-44s %10s %10s\n", "steerable-sidecar", fmtDur(percentile(rtt, 50)), fmtDur(percentile(rtt, 99)))
	ec := start(exec.Command(*echo))
	ertt := ec.sequential(*pings, `"method":"system.ping"`)
	fmt.Printf("%-44s %10s %10s\n\n", "bare newline-JSON echo loop", fmtDur(percentile(ertt, 50)), fmtDur(percentile(ertt, 99)))

	ours := sc.pipelined(*calls, 64, `"method":"system.ping"`)
	theirs := ec.pipelined(*calls, 64, `"method":"system.ping"`)
	fmt.Printf("%-44s %12s\n", "system.ping, 64 in flight", "calls/s")
	fmt.Printf("%-44s %12.0f\n", "steerable-sidecar", ours)
	fmt.Printf("%-44s %12.0f\n", "bare newline-JSON echo loop", theirs)
	fmt.Printf("ratio %.0f%% of the echo loop; target ≥ 50%%: %s\n\n", 100*ours/theirs, verdict(ours >= theirs/2))
	ec.stop()

	sc.stop()

	// Idle memory of a fresh process: start, list the tools, settle.
	idle := start(side())
	idle.awaitNotification("lifecycle.ready")
	idle.sequential(1, `"method":"tool.list","params":{"view":"model"}`)
	time.Sleep(500 * time.Millisecond)
	rss := rssKiB(idle.cmd.Process.Pid)
	idle.stop()
	fmt.Printf("%-44s %12s\n", "idle RSS after tool.list", "MiB")
	fmt.Printf("%-44s %12.1f\n", "steerable-sidecar (target ≤ 15 MiB)", float64(rss)/1024)
	if *mcp != "" {
		args := append(strings.Fields(*mcp), dir)
		m := start(exec.Command(args[0], args[1:]...))
		m.sequential(1, `"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
		m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		m.sequential(1, `"method":"tools/list"`)
		time.Sleep(300 * time.Millisecond)
		fmt.Printf("%-44s %12.1f\n", "server-filesystem (npm) after tools/list", float64(rssKiB(m.cmd.Process.Pid))/1024)
		m.stop()
	}
	fmt.Printf("target: %s\n", verdict(rss <= 15*1024))
}

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

// stderrLine starts cmd and measures until a stderr line has the prefix.
func stderrLine(prefix string) func(*exec.Cmd) (time.Duration, error) {
	return func(cmd *exec.Cmd) (time.Duration, error) {
		stdin, _ := cmd.StdinPipe()
		stderr, _ := cmd.StderrPipe()
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		defer func() { stdin.Close(); io.Copy(io.Discard, stderr); cmd.Wait() }()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), prefix) {
				return time.Since(t0), nil
			}
		}
		return 0, fmt.Errorf("%s: no %q line", cmd.Path, prefix)
	}
}

// initializeReply measures from the start to the MCP initialize reply.
func initializeReply(cmd *exec.Cmd) (time.Duration, error) {
	t0 := time.Now()
	p := start(cmd)
	defer p.stop()
	p.sequential(1, `"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	return time.Since(t0), nil
}

// proc is a process driven over newline-delimited JSON-RPC.
type proc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func start(cmd *exec.Cmd) *proc {
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "start %s: %v\n", cmd.Path, err)
		os.Exit(1)
	}
	return &proc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (p *proc) send(line string) { io.WriteString(p.in, line+"\n") }

func (p *proc) readLine() string {
	line, err := p.out.ReadString('\n')
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", p.cmd.Path, err)
		os.Exit(1)
	}
	return line
}

func (p *proc) awaitNotification(method string) {
	for !strings.Contains(p.readLine(), `"method":"`+method+`"`) {
	}
}

// sequential sends n requests one at a time and returns each round trip.
func (p *proc) sequential(n int, body string) []time.Duration {
	out := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		p.id++
		t0 := time.Now()
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(p.id) + `,` + body + `}`)
		for replyID(p.readLine()) != p.id {
		}
		out = append(out, time.Since(t0))
	}
	return out
}

// pipelined keeps window requests in flight and returns replies per second.
func (p *proc) pipelined(n, window int, body string) float64 {
	slots := make(chan struct{}, window)
	done := make(chan struct{})
	go func() {
		for i := 0; i < n; i++ {
			if replyID(p.readLine()) > 0 {
				<-slots
			} else {
				i--
			}
		}
		close(done)
	}()
	t0 := time.Now()
	w := bufio.NewWriter(p.in)
	for i := 0; i < n; i++ {
		select {
		case slots <- struct{}{}:
		default:
			w.Flush()
			slots <- struct{}{}
		}
		p.id++
		w.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(p.id) + `,` + body + "}\n")
	}
	w.Flush()
	<-done
	return float64(n) / time.Since(t0).Seconds()
}

func (p *proc) stop() {
	p.in.Close()
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, p.out); p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// replyID returns the numeric id of a reply line, or 0 for anything else
// (notifications, other processes' key orders).
func replyID(line string) int {
	var m struct {
		ID     *int    `json:"id"`
		Method *string `json:"method"`
	}
	if json.Unmarshal([]byte(line), &m) != nil || m.ID == nil || m.Method != nil {
		return 0
	}
	return *m.ID
}

func rssKiB(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			n, _ := strconv.Atoi(strings.Fields(l)[1])
			return n
		}
	}
	return 0
}

func percentile(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100]
}

func median(d []time.Duration) time.Duration { return percentile(d, 50) }

func ratio(a, b []time.Duration) float64 { return float64(median(a)) / float64(median(b)) }

func row(name string, d []time.Duration) {
	fmt.Printf("%-44s %10s %10s %10s\n", name, fmtDur(median(d)), fmtDur(percentile(d, 10)), fmtDur(percentile(d, 90)))
}

func fmtDur(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISS"
}
