// Command bash measures the bash tool for `make bench` (bench/sections/40-bash.sh):
// the overhead of one `bash` call of `true` through the sidecar per sandbox
// backend against a bare `bash -c true` in the same run, reference sandboxes
// running the same command, and the throughput of the capture path on a
// command printing 100 MB. Figures only: nothing here fails the build.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
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
	bare := median(bareRuns)
	fmt.Printf("%-34s %10s %10s %10s %10s  %s\n", "bash -c true", "median", "p10", "p90", "overhead", "target")
	row("bare bash -c true", bareRuns, 0, 0)
	targets := map[string]time.Duration{"landlock": 5 * time.Millisecond, "bwrap": 15 * time.Millisecond}
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
	m := median(ds)
	over := "-"
	if bare > 0 {
		over = ms(m - bare)
	}
	verdict := ""
	if target > 0 {
		verdict = "≤ " + ms(target) + ": ok"
		if m-bare > target {
			verdict = "≤ " + ms(target) + ": MISS"
		}
	}
	fmt.Printf("%-34s %10s %10s %10s %10s  %s\n", name, ms(m), ms(pct(ds, 10)), ms(pct(ds, 90)), over, verdict)
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
	verdict := "ok"
	if mbs < 200 {
		verdict = "MISS"
	}
	fmt.Printf("\ncapture throughput (100 MB through bash under %s): %.0f MB/s in %s, result %d bytes, target ≥ 200 MB/s: %s\n",
		s.backend(), mbs, ms(d), len(res), verdict)
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

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// sidecar is a live `serve` process driven over stdio.
type sidecar struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	seq   int
	ready map[string]any
}

func startSidecar(bin, backend string) (*sidecar, error) {
	cmd := exec.Command(bin, "--quiet-ready", "--log-level", "error")
	cmd.Env = append(os.Environ(), "STEERABLE_SANDBOX="+backend)
	cmd.Dir, _ = os.MkdirTemp("", "bench-bash-")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sidecar{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	var h map[string]any
	if err := s.rpc("system.ping", `{}`, &h); err != nil {
		s.close()
		return nil, err
	}
	s.ready = h
	return s, nil
}

// backend is the backend the sidecar reports in checks.sandbox.
func (s *sidecar) backend() string {
	checks, _ := s.ready["checks"].(map[string]any)
	sb, _ := checks["sandbox"].(map[string]any)
	msg, _ := sb["message"].(string)
	f := strings.Fields(strings.TrimPrefix(msg, "commands run unconfined; "))
	if len(f) > 1 && f[0] == "backend" {
		return strings.TrimSuffix(f[1], ",")
	}
	return "?"
}

func (s *sidecar) call(args string) (string, error) {
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Data    struct {
			Stdout string `json:"stdout"`
		} `json:"data"`
	}
	if err := s.rpc("tool.invoke", `{"name":"bash","arguments":`+args+`}`, &res); err != nil {
		return "", err
	}
	if !res.Success {
		return "", fmt.Errorf("bash failed: %s", res.Error)
	}
	return res.Data.Stdout, nil
}

// rpc sends one request and reads frames until its reply (notifications
// are skipped).
func (s *sidecar) rpc(method, params string, result any) error {
	s.seq++
	fmt.Fprintf(s.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", s.seq, method, params)
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return err
		}
		var f struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &f) != nil || f.ID == nil || *f.ID != s.seq {
			continue
		}
		if f.Error != nil {
			return fmt.Errorf("%s: %s", method, f.Error)
		}
		return json.Unmarshal(f.Result, result)
	}
}

func (s *sidecar) close() {
	s.in.Close()
	s.cmd.Wait()
	os.RemoveAll(s.cmd.Dir)
}
