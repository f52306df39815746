// Command bash measures the bash tool for `make bench` (bench/sections/40-bash.sh):
// the overhead of one `bash` call of `true` through the sidecar per sandbox
// backend against a bare `bash -c true` in the same run, reference sandboxes
// running the same command, and the throughput of the capture path on a
// command printing 100 MB. Figures only: nothing here fails the build.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

type refFlag []string

func (r *refFlag) String() string     { return strings.Join(*r, ",") }
func (r *refFlag) Set(s string) error { *r = append(*r, s); return nil }

func main() {
	bin := flag.String("bin", "bin/steerable-sidecar", "the sidecar binary")
	runs := flag.Int("runs", 50, "runs per figure")
	var refs refFlag
	flag.Var(&refs, "ref", "NAME=COMMAND: a reference command run like bare bash (repeatable); COMMAND=MISS:reason prints MISS")
	flag.Parse()

	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	bareRuns := timeRuns(*runs, func() error { return exec.Command("bash", "-c", "true").Run() })
	bare := benchkit.Median(bareRuns)
	fmt.Printf("%-34s %10s %10s %10s %10s  %s\n", "bash -c true", "median", "p10", "p90", "overhead", "target")
	row("bare bash -c true", bareRuns, 0, 0)
	targets := map[string]time.Duration{"landlock": 2 * time.Millisecond, "bwrap": 8 * time.Millisecond}
	for _, backend := range []string{"none", "landlock", "bwrap"} {
		name := "sidecar bash, " + backend
		s, err := startSidecar(*bin, backend)
		if err != nil {
			fmt.Printf("%-34s MISS (%v)\n", name, err)
			continue
		}
		if got := s.backend(); got != backend {
			fmt.Printf("%-34s MISS (the %s backend does not work here; the sidecar chose %s)\n", name, backend, got)
			s.close()
			continue
		}
		ds := timeRuns(*runs, func() error { _, err := s.call(`{"command":"true"}`); return err })
		s.close()
		row(name, ds, bare, targets[backend])
	}
	for _, r := range refs {
		name, command, _ := strings.Cut(r, "=")
		if reason, ok := strings.CutPrefix(command, "MISS:"); ok {
			fmt.Printf("%-34s MISS (%s)\n", name, reason)
			continue
		}
		ds := timeRuns(*runs, func() error { return exec.Command("sh", "-c", command).Run() })
		if ds == nil {
			fmt.Printf("%-34s MISS (%s failed: %v)\n", name, command, exec.Command("sh", "-c", command).Run())
			continue
		}
		row(name, ds, bare, 0)
	}
	throughput(*bin)
}

// row prints one figure; a non-zero target is checked against the overhead
// over bare bash.
func row(name string, ds []time.Duration, bare, target time.Duration) {
	if ds == nil {
		fmt.Printf("%-34s MISS (a run failed)\n", name)
		return
	}
	m := benchkit.Median(ds)
	over := "-"
	if bare > 0 {
		over = benchkit.Millis(m - bare)
	}
	verdict := ""
	if target > 0 {
		verdict = "≤ " + benchkit.Millis(target) + ": " + benchkit.Verdict(m-bare <= target)
	}
	p10, p90 := benchkit.Percentile(ds, 10), benchkit.Percentile(ds, 90)
	fmt.Printf("%-34s %10s %10s %10s %10s  %s\n", name, benchkit.Millis(m), benchkit.Millis(p10), benchkit.Millis(p90), over, verdict)
}

// throughput times one call printing 100 MB through the capture path.
func throughput(bin string) {
	s, err := startSidecar(bin, "auto")
	if err != nil {
		fmt.Printf("\ncapture throughput: MISS (%v)\n", err)
		return
	}
	defer s.close()
	const size = 100 << 20
	start := time.Now()
	res, err := s.call(fmt.Sprintf(`{"command":"head -c %d /dev/zero"}`, size))
	d := time.Since(start)
	if err != nil {
		fmt.Printf("\ncapture throughput: MISS (%v)\n", err)
		return
	}
	mbs := float64(size) / (1 << 20) / d.Seconds()
	fmt.Printf("\ncapture throughput (100 MB through bash under %s): %.0f MB/s in %s, result %d bytes, target ≥ 200 MB/s: %s\n",
		s.backend(), mbs, benchkit.Millis(d), len(res), benchkit.Verdict(mbs >= 200))
}

func timeRuns(n int, f func() error) []time.Duration {
	var ds []time.Duration
	for range n {
		start := time.Now()
		if err := f(); err != nil {
			return nil
		}
		ds = append(ds, time.Since(start))
	}
	return ds
}

// sidecar is a live `serve` process driven over stdio, in a scratch
// directory of its own.
type sidecar struct {
	p      *benchkit.Sidecar
	health map[string]any // the system.ping result taken at the start
}

func startSidecar(bin, backend string) (*sidecar, error) {
	p, err := benchkit.StartSidecar(bin, "bash", "STEERABLE_SANDBOX="+backend)
	if err != nil {
		return nil, err
	}
	s := &sidecar{p: p}
	raw, err := p.Call("system.ping", map[string]any{})
	if err == nil {
		err = json.Unmarshal(raw, &s.health)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// backend is the backend the sidecar reports in checks.sandbox.
func (s *sidecar) backend() string {
	checks, _ := s.health["checks"].(map[string]any)
	sb, _ := checks["sandbox"].(map[string]any)
	msg, _ := sb["message"].(string)
	f := strings.Fields(strings.TrimPrefix(msg, "commands run unconfined; "))
	if len(f) > 1 && f[0] == "backend" {
		return strings.TrimSuffix(f[1], ",")
	}
	return "?"
}

// call runs the bash tool with args (a JSON object) and returns its stdout.
func (s *sidecar) call(args string) (string, error) {
	raw, err := s.p.Invoke("bash", json.RawMessage(args))
	if err != nil {
		return "", err
	}
	var data struct {
		Stdout string `json:"stdout"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return "", err
	}
	return data.Stdout, nil
}

func (s *sidecar) close() { s.p.Close() }
