// Command bash measures the bash tool for `make bench` (bench/sections/40-bash.sh):
// the overhead of one `bash` call of `true` through the sidecar per sandbox
// backend against a bare `bash -c true` in the same run, reference sandboxes
// running the same command, and the throughput of the capture path on a
// command printing 100 MB. With -base (BASE_BIN), another build runs
// beside it, interleaved call by call with it and bare bash, and read_file
// of 4 KiB in a home workspace (its credential stores on the deny list the
// file tools check) is timed for both in interleaved rounds, before and
// after. Figures only: nothing here fails the build.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
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
	base := flag.String("base", os.Getenv("BASE_BIN"), "a build to measure beside -bin, interleaved ('' skips it)")
	capture := flag.Bool("capture", true, "time the capture path too")
	var refs refFlag
	flag.Var(&refs, "ref", "NAME=COMMAND: a reference command run like bare bash (repeatable); COMMAND=MISS:reason prints MISS")
	flag.Parse()

	for _, p := range []*string{bin, base} {
		if abs, err := filepath.Abs(*p); err == nil && *p != "" {
			*p = abs
		}
	}
	bareRuns := timeRuns(*runs, func() error { return exec.Command("bash", "-c", "true").Run() })
	bare := benchkit.Median(bareRuns)
	fmt.Printf("%-34s %10s %10s %10s %10s  %s\n", "bash -c true", "median", "p10", "p90", "overhead", "target")
	row("bare bash -c true", bareRuns, 0, 0)
	targets := map[string]time.Duration{"landlock": 2 * time.Millisecond, "bwrap": 8 * time.Millisecond}
	for _, backend := range []string{"none", "landlock", "bwrap"} {
		benchBackend(backend, *bin, *base, *runs, targets[backend])
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
	if *base != "" {
		readFileBeside(*bin, *base, 7)
	}
	if *capture {
		throughput(*bin)
	}
}

// benchBackend prints the overhead of a bash call of true under backend
// over bare bash, for bin and, when set, base: the three interleaved run
// by run, so a load that changes during the run changes them alike.
func benchBackend(backend, bin, base string, runs int, target time.Duration) {
	name := "sidecar bash, " + backend
	bins := []string{bin}
	if base != "" {
		bins = append(bins, base)
	}
	var sides []*sidecar
	defer func() {
		for _, s := range sides {
			s.close()
		}
	}()
	for _, b := range bins {
		s, err := startSidecar(b, backend)
		if err != nil {
			fmt.Printf("%-34s MISS (%s: %v)\n", name, b, err)
			return
		}
		sides = append(sides, s)
		if got := s.backend(); got != backend {
			fmt.Printf("%-34s MISS (the %s backend does not work here; %s chose %s)\n", name, backend, b, got)
			return
		}
	}
	var bareCPU time.Duration
	steps := []func() error{func() error {
		cmd := exec.Command("bash", "-c", "true")
		err := cmd.Run()
		if cmd.ProcessState != nil {
			bareCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		return err
	}}
	cpu := make([]time.Duration, len(sides))
	for i, s := range sides {
		cpu[i] = treeCPU(s)
		steps = append(steps, func() error { _, err := s.call(`{"command":"true"}`); return err })
	}
	ds := interleaved(runs, steps)
	if ds == nil {
		fmt.Printf("%-34s MISS (a run failed)\n", name)
		return
	}
	bare := benchkit.Median(ds[0])
	for i, s := range sides {
		cpu[i] = (treeCPU(s) - cpu[i]) / time.Duration(runs)
	}
	row(name, ds[1], bare, target)
	if base != "" {
		row("  before (BASE_BIN)", ds[2], bare, target)
		fmt.Printf("%-34s %s → %s, bare bash %s (the sidecar and its command trees, per call: the load bends CPU time far less than wall time)\n",
			"  CPU per call, before → after", benchkit.Millis(cpu[1]), benchkit.Millis(cpu[0]), benchkit.Millis(bareCPU/time.Duration(runs)))
	}
}

// treeCPU is the CPU time the sidecar and the command trees it reaped
// have used so far (0 where /proc cannot say).
func treeCPU(s *sidecar) time.Duration {
	d, _ := benchkit.CPUTime(s.p.Pid(), true)
	return d
}

// interleaved runs each step once per run, in order, and returns each
// step's times; nil when a run failed.
func interleaved(runs int, steps []func() error) [][]time.Duration {
	out := make([][]time.Duration, len(steps))
	for range runs {
		for i, f := range steps {
			start := time.Now()
			if err := f(); err != nil {
				return nil
			}
			out[i] = append(out[i], time.Since(start))
		}
	}
	return out
}

// readFileBeside times read_file of a 4 KiB file, sequential, for bin and
// base in interleaved rounds, in the workspace a desktop user opens most:
// their home, its credential stores (.ssh, .aws) inside it and on the deny
// list, which the file tools check on every path (target: within 10%).
func readFileBeside(bin, base string, rounds int) {
	home, err := os.MkdirTemp("", "bench-home-")
	if err == nil {
		defer os.RemoveAll(home)
		home, err = filepath.EvalSymlinks(home)
	}
	for _, f := range []string{".ssh/id_ed25519", ".aws/credentials", "src/read4k.txt"} {
		if err == nil {
			err = os.MkdirAll(filepath.Join(home, filepath.Dir(f)), 0o700)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(home, f), []byte(strings.Repeat("a line of text, 64 bytes long, as source files often have....\n", 64)), 0o600)
		}
	}
	if err != nil {
		fmt.Printf("\nread_file 4 KiB: MISS (%v)\n", err)
		return
	}
	args := map[string]any{"name": "read_file", "arguments": map[string]any{"path": "src/read4k.txt"}}
	var samples [2][]time.Duration
	for range rounds {
		for i, b := range []string{bin, base} {
			cmd := exec.Command(b, "--quiet-ready", "--log-level", "error", "--cwd", home)
			cmd.Dir, cmd.Env = home, append(os.Environ(), "HOME="+home)
			p, err := benchkit.Start(cmd)
			if err == nil {
				_, err = p.RoundTrips(200, "tool.invoke", args) // warm up
			}
			var d []time.Duration
			if err == nil {
				d, err = p.RoundTrips(1000, "tool.invoke", args)
			}
			if p != nil {
				p.Close()
			}
			if err != nil {
				fmt.Printf("\nread_file 4 KiB: MISS (%s: %v)\n", b, err)
				return
			}
			samples[i] = append(samples[i], d...)
		}
	}
	o, b := benchkit.Percentile(samples[0], 50), benchkit.Percentile(samples[1], 50)
	ratio := float64(o) / float64(b)
	fmt.Printf("\nread_file of 4 KiB in a home workspace, sequential p50 (%d rounds × 1000, interleaved): %.1f µs, before (BASE_BIN) %.1f µs, %.2f×; target within 10%%: %s\n",
		rounds, float64(o)/1e3, float64(b)/1e3, ratio, benchkit.Verdict(ratio <= 1.10))
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
