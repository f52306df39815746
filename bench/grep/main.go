// Command grep measures the grep and glob tools for `make bench` (section
// 70-grep): literal grep, regex grep (with and without a literal in the
// expression), files-with-matches and glob, each as a tool.invoke round
// trip through the binary beside ripgrep on the same tree in the same
// run, rounds interleaved (rg, ours, ours, rg, …) and medians taken; the
// sidecar's peak RSS; and how fast a cancelled grep is answered.
// Figures are printed, never asserted; a missed target prints MISS.
//
// With -base, a second binary (say, main's build) is measured in the same
// interleaved rounds, so a change is compared with what it replaces under
// the same load; -only keeps the measures whose name contains its text.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

const rounds = 7

// measure is one row: a tool call and the rg command doing the same work.
type measure struct {
	name string
	tool string
	args map[string]any
	rg   []string
}

// The expressions: one with a literal every match holds ("Handler("), one
// whose only such literal is a single byte ("_"), one with none at all.
const (
	regexLiteral = `func \w+Handler\(`
	regexByte    = `\b[A-Z]{4,}_[0-9]{3}\b`
	regexBare    = `\b[A-Z]{4,}[0-9]{3}\b`
)

func measures(literal, common string) []measure {
	re := func(name, q string) measure {
		return measure{name, "grep", map[string]any{"query": q, "isRegex": true, "limit": 1000}, []string{"-n", "--", q}}
	}
	return []measure{
		{"literal grep", "grep", map[string]any{"query": literal, "limit": 1000}, []string{"-n", "--", literal}},
		re("regex grep (a literal inside)", regexLiteral),
		re("regex grep (one byte to look for: _)", regexByte),
		re("regex grep (nothing to look for)", regexBare),
		{"files with matches", "grep", map[string]any{"query": common, "output": "files", "limit": 1000}, []string{"-l", "--", common}},
		{"glob **/*.go (rg --files -g '*.go')", "glob", map[string]any{"pattern": "**/*.go", "limit": 1000}, []string{"--files", "-g", "*.go"}},
	}
}

func main() {
	bin := flag.String("bin", os.Getenv("BIN"), "the steerable-sidecar binary")
	cache := flag.String("cache", os.Getenv("BENCH_CACHE"), "directory for the generated tree")
	flag.StringVar(&baseBin, "base", "", "a second binary measured in the same rounds (a before/after comparison)")
	flag.StringVar(&only, "only", "", "run only the measures whose name contains this")
	flag.Parse()
	rg, err := exec.LookPath("rg")
	if err != nil {
		fmt.Println("rg (ripgrep) is not installed: the reference column cannot be measured; apt-get install ripgrep")
		rg = ""
	}
	tree := filepath.Join(*cache, "grep-tree")
	start := time.Now()
	if err := makeTree(tree); err != nil {
		fail(err)
	}
	fmt.Printf("grep and glob through tool.invoke vs ripgrep %s, same tree, same run; %d interleaved rounds, medians [min–max]; target ≤ 1.5× rg, peak RSS ≤ 64 MiB\n", rgVersion(rg), rounds)
	fmt.Printf("(tree ready in %s; the machine's 2 cores are shared with other work, so spreads are wide)\n", time.Since(start).Round(time.Millisecond))
	header := fmt.Sprintf("%-44s %16s %16s %7s  %s", "measure", "ours", "rg", "ratio", "target")
	if baseBin != "" {
		header += fmt.Sprintf("  %18s %7s", "base "+filepath.Base(filepath.Dir(baseBin)), "ratio")
	}
	fmt.Println(header)
	fmt.Println("-- generated tree: 20,000 files, ~300 MB, .gitignore'd node_modules/ build/ *.log")
	runSet(*bin, rg, tree, measures("parseConfig", "TODO"), true)
	if mod := "/root/go/pkg/mod"; dirExists(mod) {
		fmt.Println("-- Go module cache", mod)
		runSet(*bin, rg, mod, measures("context.Context", "TODO"), false)
	} else if mod, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil && dirExists(string(trim(mod))) {
		fmt.Println("-- Go module cache", string(trim(mod)))
		runSet(*bin, rg, string(trim(mod)), measures("context.Context", "TODO"), false)
	}
}

// Flags that every set uses.
var (
	baseBin string
	only    string
)

// serve starts a sidecar on dir.
func serve(bin, dir string) *benchkit.Proc {
	cmd := exec.Command(bin, "--quiet-ready", "--log-level", "error", "--no-web-tools", "--cwd", dir)
	cmd.Stderr = os.Stderr
	p, err := benchkit.Start(cmd)
	if err != nil {
		fail(err)
	}
	return p
}

// runSet runs every measure on dir with one sidecar serving it (and one
// of the base binary), then (with cancel) the cancellation latency.
func runSet(bin, rg, dir string, ms []measure, cancel bool) {
	p := serve(bin, dir)
	defer p.Close()
	var base *benchkit.Proc
	if baseBin != "" {
		base = serve(baseBin, dir)
		defer base.Close()
	}
	for _, m := range ms {
		if !strings.Contains(m.name, only) {
			continue
		}
		t, err := timeRounds(p, base, rg, dir, m)
		if err != nil {
			fmt.Printf("%-44s failed: %v\n", m.name, err)
			continue
		}
		row(m.name, t)
	}
	if rss, err := benchkit.PeakRSS(p.Pid()); err == nil {
		line := fmt.Sprintf("%-44s %16s %16s %7s  %s", "sidecar peak RSS (all of the above)", mib(rss), "-", "-",
			"≤ 64 MiB "+benchkit.Verdict(rss <= 64<<20))
		if base != nil {
			if rss, err := benchkit.PeakRSS(base.Pid()); err == nil {
				line += fmt.Sprintf("  %18s %7s", mib(rss), "-")
			}
		}
		fmt.Println(line)
	}
	if cancel && only == "" {
		cancelLatency(p)
	}
}

// timings are one measure's rounds: ours, rg's and the base binary's.
type timings struct {
	ours, ref, base []time.Duration
}

// timeRounds warms the cache with one untimed run of each, then runs them
// in turn, rotating which goes first every round.
func timeRounds(p, base *benchkit.Proc, rg, dir string, m measure) (timings, error) {
	var t timings
	type runner struct {
		into *[]time.Duration
		run  func() error
	}
	invoke := func(p *benchkit.Proc) func() error {
		return func() error { _, err := p.Invoke(m.tool, m.args); return err }
	}
	runners := []runner{{&t.ours, invoke(p)}}
	if rg != "" {
		runners = append(runners, runner{&t.ref, func() error { return runRipgrep(rg, dir, m.rg) }})
	}
	if base != nil {
		runners = append(runners, runner{&t.base, invoke(base)})
	}
	for _, r := range runners {
		if err := r.run(); err != nil {
			return t, err
		}
	}
	for i := range rounds {
		for j := range runners {
			r := runners[(i+j)%len(runners)]
			start := time.Now()
			if err := r.run(); err != nil {
				return t, err
			}
			*r.into = append(*r.into, time.Since(start))
		}
	}
	return t, nil
}

// runRipgrep runs rg in dir, reading its output as a client would. Exit
// status 1 (no match) is not a failure.
func runRipgrep(rg, dir string, args []string) error {
	cmd := exec.Command(rg, append([]string{"--no-config"}, args...)...)
	cmd.Dir = dir
	cmd.Stdout = io.Discard
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return nil
	}
	return err
}

func row(name string, t timings) {
	o := benchkit.Median(t.ours)
	target, ratio, r := "-", "-", "-"
	if len(t.ref) > 0 {
		x := float64(o) / float64(benchkit.Median(t.ref))
		ratio = fmt.Sprintf("%.2fx", x)
		r = spread(t.ref)
		target = "≤ 1.5× " + benchkit.Verdict(x <= 1.5)
	}
	line := fmt.Sprintf("%-44s %16s %16s %7s  %s", name, spread(t.ours), r, ratio, target)
	if len(t.base) > 0 {
		b, bratio := benchkit.Median(t.base), "-"
		if len(t.ref) > 0 {
			bratio = fmt.Sprintf("%.2fx", float64(b)/float64(benchkit.Median(t.ref)))
		}
		line += fmt.Sprintf("  %18s %7s", spread(t.base), bratio)
	}
	fmt.Println(line)
}

// spread is "median [min–max]" in milliseconds.
func spread(d []time.Duration) string {
	lo, hi := benchkit.Range(d)
	return fmt.Sprintf("%.0f [%.0f–%.0f] ms", ms(benchkit.Median(d)), ms(lo), ms(hi))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cancelLatency sends a grep that takes seconds (an expression without a
// literal), cancels it with $/cancelRequest after 30 ms and times the
// -32800 reply from the cancel.
func cancelLatency(p *benchkit.Proc) {
	args := map[string]any{"name": "grep", "arguments": map[string]any{"query": regexBare, "isRegex": true, "output": "count"}}
	var lat []time.Duration
	for range 9 {
		c, err := p.CallCancel("tool.invoke", args, 30*time.Millisecond, 10*time.Second)
		if err != nil {
			fmt.Printf("%-44s failed: %v\n", "cancel", err)
			return
		}
		if c.Latency > 0 {
			lat = append(lat, c.Latency)
		}
	}
	p50, worst := benchkit.Median(lat), benchkit.Percentile(lat, 100)
	fmt.Printf("%-44s %16s %16s %7s  %s\n", "$/cancelRequest → -32800 reply, p50 / max", fmt.Sprintf("%.1f / %.1f ms", ms(p50), ms(worst)), "-", "-",
		"≤ 50 ms "+benchkit.Verdict(len(lat) > 0 && worst <= 50*time.Millisecond))
}

func rgVersion(rg string) string {
	if rg == "" {
		return "(absent)"
	}
	out, _ := exec.Command(rg, "--version").Output()
	for i, c := range out {
		if c == '\n' {
			return string(out[:i])
		}
	}
	return string(out)
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "grep bench:", err)
	os.Exit(1)
}
