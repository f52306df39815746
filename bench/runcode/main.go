// Command runcode measures run_code for `make bench`
// (bench/sections/45-runcode.sh): per sandbox backend, the overhead of a
// run_code call of `return 1` over a bare `python3 -I -S -c pass` of the
// same interpreter, and the cost of one nested tools.read_file over the
// bridge (programs of 30 reads of a 4 KiB file against `return 1`), beside
// the same 30 reads as separate tool.invoke round trips from a host. The
// three are interleaved run by run, so a busy machine slows them alike.
// Figures only: nothing here fails the build.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

const reads = 30

// readsProgram times its own reads, so the figure is the bridge's and the
// nested read_file's cost without the noise of process start-up: the
// value is the loop's seconds.
var readsProgram = fmt.Sprintf("import time\nt = time.perf_counter()\nfor i in range(%d):\n    r = tools.read_file(path=\"f.txt\")\n"+
	"    assert r[\"success\"] and r[\"data\"][\"bytes\"] == 4096\nreturn time.perf_counter() - t", reads)

func main() {
	bin := flag.String("bin", "bin/steerable-sidecar", "the sidecar binary")
	runs := flag.Int("runs", 50, "runs per figure")
	flag.Parse()
	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	ws, err := os.MkdirTemp("", "bench-runcode-")
	if err != nil {
		fmt.Println("MISS:", err)
		return
	}
	defer os.RemoveAll(ws)
	os.WriteFile(filepath.Join(ws, "f.txt"), []byte(strings.Repeat("0123456789abcde\n", 256)), 0o644) // 4 KiB
	fmt.Printf("%-30s %10s %10s %10s %10s  %s\n", "run_code", "median", "p10", "p90", "overhead", "target")
	targets := map[string]time.Duration{"landlock": 10 * time.Millisecond, "bwrap": 14 * time.Millisecond}
	for _, backend := range []string{"landlock", "bwrap"} {
		measure(*bin, ws, backend, *runs, targets[backend])
	}
}

// measure prints one backend's rows.
func measure(bin, ws, backend string, runs int, target time.Duration) {
	s, exe, err := start(bin, ws, backend)
	if err != nil {
		fmt.Printf("%-30s MISS (%v)\n", "run_code under "+backend, err)
		return
	}
	defer s.Close()
	for range 3 { // the first calls build the Landlock ruleset and warm the page cache
		s.Invoke("run_code", program(readsProgram))
	}
	// Rounds of blocks (bare, then return 1, then the reads): a bare start
	// right before each call would slow that call by several ms here (the
	// exec's aftermath in the scheduler), which is not run_code's cost.
	var bare, one, thirty, perCall, host []time.Duration
	readArgs := map[string]any{"name": "read_file", "arguments": map[string]any{"path": "f.txt"}}
	const block = 10
	for round := 0; round*block < runs; round++ {
		for range block {
			bare = append(bare, timed(func() error { return exec.Command(exe, "-I", "-S", "-c", "pass").Run() }))
		}
		for range block {
			one = append(one, timed(func() error { _, err := s.Invoke("run_code", program("return 1")); return err }))
		}
		for range block {
			thirty = append(thirty, timed(func() error {
				d, err := loopTime(s)
				perCall = append(perCall, d/reads)
				return err
			}))
			ds, err := s.RoundTrips(reads, "tool.invoke", readArgs)
			if err != nil {
				fmt.Printf("%-30s MISS (%v)\n", "host read_file round trips", err)
				return
			}
			var sum time.Duration
			for _, d := range ds {
				sum += d
			}
			host = append(host, sum)
		}
	}
	if failed(bare) || failed(one) || failed(thirty) {
		fmt.Printf("%-30s MISS (a run failed under %s)\n", "run_code", backend)
		return
	}
	b := benchkit.Median(bare)
	row("bare "+filepath.Base(exe)+" -I -S -c pass", bare, 0, 0)
	row("run_code `return 1`, "+backend, one, b, target)
	perBridge := benchkit.Median(perCall)
	perHost := benchkit.Median(host) / reads
	fmt.Printf("  nested tools.read_file over the bridge, %s: %s per call (30 reads of 4 KiB: %s), target ≤ 150 µs: %s\n",
		backend, micros(perBridge), benchkit.Millis(benchkit.Median(thirty)), benchkit.Verdict(perBridge <= 150*time.Microsecond))
	fmt.Printf("  the same reads as tool.invoke round trips from a host: %s per call\n", micros(perHost))
	fmt.Printf("  interpreter: %s\n", exe)
}

// loopTime runs readsProgram and returns the time its loop took.
func loopTime(s *benchkit.Proc) (time.Duration, error) {
	raw, err := s.Invoke("run_code", program(readsProgram))
	if err != nil {
		return 0, err
	}
	var data struct{ Value float64 }
	if err := json.Unmarshal(raw, &data); err != nil {
		return 0, err
	}
	return time.Duration(data.Value * float64(time.Second)), nil
}

func program(code string) map[string]any {
	return map[string]any{"code": code, "description": "bench"}
}

// timed runs f once; a failure is a negative duration.
func timed(f func() error) time.Duration {
	start := time.Now()
	if err := f(); err != nil {
		return -1
	}
	return time.Since(start)
}

func failed(ds []time.Duration) bool {
	for _, d := range ds {
		if d < 0 {
			return true
		}
	}
	return false
}

func row(name string, ds []time.Duration, bare, target time.Duration) {
	m := benchkit.Median(ds)
	over, verdict := "-", ""
	if bare > 0 {
		over = benchkit.Millis(m - bare)
	}
	if target > 0 {
		verdict = "≤ " + benchkit.Millis(target) + ": " + benchkit.Verdict(m-bare <= target)
	}
	fmt.Printf("%-30s %10s %10s %10s %10s  %s\n", name, benchkit.Millis(m), benchkit.Millis(benchkit.Percentile(ds, 10)),
		benchkit.Millis(benchkit.Percentile(ds, 90)), over, verdict)
}

func micros(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

// interpreterRe reads the interpreter and backend from checks.run_code.
var interpreterRe = regexp.MustCompile(`^python3 \S+ at (\S+) (?:\(found as \S+\) )?, under (\S+) `)

// start runs a sidecar with run_code under backend and returns it with the
// interpreter its checks.run_code names.
func start(bin, ws, backend string) (*benchkit.Proc, string, error) {
	cmd := exec.Command(bin, "--quiet-ready", "--log-level", "error", "--cwd", ws)
	cmd.Env = append(os.Environ(), "STEERABLE_SANDBOX="+backend, "STEERABLE_RUN_CODE=1")
	p, err := benchkit.Start(cmd)
	if err != nil {
		return nil, "", err
	}
	raw, err := p.Call("system.ping", map[string]any{})
	var h struct {
		Checks map[string]struct{ Status, Message string }
	}
	if err == nil {
		err = json.Unmarshal(raw, &h)
	}
	rc := h.Checks["run_code"]
	m := interpreterRe.FindStringSubmatch(strings.Replace(rc.Message, ",", " ,", 1))
	switch {
	case err != nil:
	case rc.Status != "ok" || m == nil:
		err = fmt.Errorf("run_code is not usable: %s", rc.Message)
	case m[2] != backend:
		err = fmt.Errorf("the %s backend does not work here (run_code runs under %s)", backend, m[2])
	}
	if err != nil {
		p.Close()
		return nil, "", err
	}
	return p, m[1], nil
}
