// Command grep measures the grep and glob tools for `make bench` (section
// 70-grep): literal grep, regex grep (with and without a literal in the
// expression), files-with-matches and glob, each as a tool.invoke round
// trip through the binary beside ripgrep on the same tree in the same
// run, rounds interleaved (rg, ours, ours, rg, …) and medians taken; the
// sidecar's peak RSS; and how fast a cancelled grep is answered.
// Figures are printed, never asserted; a missed target prints MISS.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
	fmt.Printf("%-44s %16s %16s %7s  %s\n", "measure", "ours", "rg", "ratio", "target")
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

// runSet runs every measure on dir with one sidecar serving it, then
// (with cancel) the cancellation latency.
func runSet(bin, rg, dir string, ms []measure, cancel bool) {
	cmd := exec.Command(bin, "--quiet-ready", "--log-level", "error", "--no-web-tools", "--cwd", dir)
	cmd.Stderr = os.Stderr
	p, err := benchkit.Start(cmd)
	if err != nil {
		fail(err)
	}
	defer p.Close()
	for _, m := range ms {
		ours, ref, err := timeRounds(p, rg, dir, m)
		if err != nil {
			fmt.Printf("%-44s failed: %v\n", m.name, err)
			continue
		}
		row(m.name, ours, ref)
	}
	if rss, err := benchkit.PeakRSS(p.Pid()); err == nil {
		fmt.Printf("%-44s %16s %16s %7s  %s\n", "sidecar peak RSS (all of the above)", fmt.Sprintf("%.1f MiB", float64(rss)/(1<<20)), "-", "-",
			"≤ 64 MiB "+benchkit.Verdict(rss <= 64<<20))
	}
	if cancel {
		cancelLatency(p)
	}
}

// timeRounds warms the cache with one untimed run of each, then runs the
// two alternately, swapping which goes first every round.
func timeRounds(p *benchkit.Proc, rg, dir string, m measure) (ours, ref []time.Duration, err error) {
	runOurs := func() error { _, err := p.Invoke(m.tool, m.args); return err }
	runRg := func() error { return runRipgrep(rg, dir, m.rg) }
	if rg == "" {
		runRg = nil
	}
	if err := runOurs(); err != nil {
		return nil, nil, err
	}
	if runRg != nil {
		if err := runRg(); err != nil {
			return nil, nil, err
		}
	}
	for i := range rounds {
		first, second := &ours, &ref
		fa, fb := runOurs, runRg
		if i%2 == 1 {
			first, second, fa, fb = second, first, fb, fa
		}
		for _, step := range []struct {
			into *[]time.Duration
			run  func() error
		}{{first, fa}, {second, fb}} {
			if step.run == nil {
				continue
			}
			t := time.Now()
			if err := step.run(); err != nil {
				return nil, nil, err
			}
			*step.into = append(*step.into, time.Since(t))
		}
	}
	return ours, ref, nil
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

func row(name string, ours, ref []time.Duration) {
	o := benchkit.Median(ours)
	target, ratio, r := "-", "-", "-"
	if len(ref) > 0 {
		rm := benchkit.Median(ref)
		x := float64(o) / float64(rm)
		ratio = fmt.Sprintf("%.2fx", x)
		r = spread(ref)
		target = "≤ 1.5× " + benchkit.Verdict(x <= 1.5)
	}
	fmt.Printf("%-44s %16s %16s %7s  %s\n", name, spread(ours), r, ratio, target)
}

// spread is "median [min–max]" in milliseconds.
func spread(d []time.Duration) string {
	lo, hi := benchkit.Range(d)
	return fmt.Sprintf("%.0f [%.0f–%.0f] ms", ms(benchkit.Median(d)), ms(lo), ms(hi))
}

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
