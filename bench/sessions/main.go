// Command sessions measures the shell sessions of bash_session and
// write_stdin for `make bench` (bench/sections/47-sessions.sh), per
// sandbox backend, against a `bash` call of `true` under the same backend
// in the same run (the rounds interleave the three calls, so a noisy
// machine slows all of them alike):
//
//   - open: bash_session {command:"true"} — a shell started under the
//     sandbox on a terminal, its first prompt, `true`, its next prompt
//     (target ≤ 10 ms over the bash call);
//   - round trip: write_stdin {chars:"echo x\n", yieldMs:50} in an open
//     session (target ≤ yieldMs + 5 ms: the prompt ends the read, so it
//     should not wait for the yield at all);
//   - 50 MB printed in a session: how long until the prompt, and the
//     sidecar's peak RSS (bounded by the ring, not by the output).
//
// Figures only: nothing here fails the build.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

const (
	openTarget  = 10 * time.Millisecond
	yieldMs     = 50
	roundTarget = yieldMs*time.Millisecond + 5*time.Millisecond
)

func main() {
	bin := flag.String("bin", "bin/steerable-sidecar", "the sidecar binary")
	runs := flag.Int("runs", 30, "rounds per backend")
	flag.Parse()
	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	fmt.Printf("%-40s %10s %10s %10s %10s  %s\n", "call", "median", "p10", "p90", "over bash", "target")
	for _, backend := range []string{"none", "landlock", "bwrap"} {
		if err := measure(*bin, backend, *runs); err != nil {
			fmt.Printf("%-40s MISS (%v)\n", backend, err)
		}
	}
}

// measure prints the rows of one backend.
func measure(bin, backend string, runs int) error {
	s, err := start(bin, backend)
	if err != nil {
		return err
	}
	defer s.close()
	var bash, open, round []time.Duration
	id, err := s.open("")
	if err != nil {
		return err
	}
	for range runs {
		d, err := timed(func() error { _, err := s.p.Invoke("bash", map[string]any{"command": "true"}); return err })
		if err != nil {
			return err
		}
		bash = append(bash, d)
		var opened string
		d, err = timed(func() error { opened, err = s.open("true"); return err })
		if err != nil {
			return err
		}
		open = append(open, d)
		if err := s.end(opened); err != nil {
			return err
		}
		d, err = timed(func() error {
			return s.echo(id)
		})
		if err != nil {
			return err
		}
		round = append(round, d)
	}
	ref := benchkit.Median(bash)
	row("bash {command:true}, "+backend, bash, 0, 0)
	row("bash_session {command:true}, "+backend, open, ref, openTarget)
	row(fmt.Sprintf("write_stdin echo x (yieldMs %d), %s", yieldMs, backend), round, 0, roundTarget)
	return s.flood(id)
}

// flood prints 50 MB in the session and reports the time to the prompt
// and the sidecar's peak RSS.
func (s *sidecar) flood(id string) error {
	start := time.Now()
	raw, err := s.p.Invoke("write_stdin", map[string]any{"sessionId": id, "chars": "head -c 50000000 /dev/zero | tr '\\0' x\n", "yieldMs": 30000})
	d := time.Since(start)
	if err != nil {
		return err
	}
	var res struct {
		State        string `json:"state"`
		DroppedBytes int64  `json:"droppedBytes"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return err
	}
	peak, err := benchkit.PeakRSS(s.p.Pid())
	if err != nil {
		return err
	}
	fmt.Printf("%-40s %10s  state %s, %d bytes dropped from the ring, peak RSS %d MiB\n",
		"50 MB printed in a session", benchkit.Millis(d), res.State, res.DroppedBytes, peak>>20)
	return nil
}

func row(name string, ds []time.Duration, ref, target time.Duration) {
	m := benchkit.Median(ds)
	over, got := "-", m
	if ref > 0 {
		over, got = benchkit.Millis(m-ref), m-ref
	}
	verdict := ""
	if target > 0 {
		verdict = "≤ " + benchkit.Millis(target) + ": " + benchkit.Verdict(got <= target)
	}
	fmt.Printf("%-40s %10s %10s %10s %10s  %s\n", name, benchkit.Millis(m),
		benchkit.Millis(benchkit.Percentile(ds, 10)), benchkit.Millis(benchkit.Percentile(ds, 90)), over, verdict)
}

func timed(f func() error) (time.Duration, error) {
	start := time.Now()
	err := f()
	return time.Since(start), err
}

// sidecar is a live `serve` with one backend, in a scratch workspace.
type sidecar struct {
	p *benchkit.Sidecar
}

func start(bin, backend string) (*sidecar, error) {
	p, err := benchkit.StartSidecar(bin, "sessions", "STEERABLE_SANDBOX="+backend)
	if err != nil {
		return nil, err
	}
	s := &sidecar{p: p}
	raw, err := p.Invoke("bash", map[string]any{"command": "true"})
	if err == nil {
		err = s.check(raw, backend)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// check makes sure the call ran under the backend asked for.
func (s *sidecar) check(raw json.RawMessage, backend string) error {
	var data struct {
		Sandbox struct {
			Backend string `json:"backend"`
		} `json:"_sandbox"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return err
	}
	if data.Sandbox.Backend != backend {
		return fmt.Errorf("the %s backend does not work here; the sidecar chose %q", backend, data.Sandbox.Backend)
	}
	return nil
}

func (s *sidecar) open(command string) (string, error) {
	raw, err := s.p.Invoke("bash_session", map[string]any{"command": command})
	if err != nil {
		return "", err
	}
	var data struct {
		SessionID string `json:"sessionId"`
	}
	err = json.Unmarshal(raw, &data)
	return data.SessionID, err
}

// echo types `echo x` and requires the read to hold its output: a fast
// round trip that returned too early would measure nothing.
func (s *sidecar) echo(id string) error {
	raw, err := s.p.Invoke("write_stdin", map[string]any{"sessionId": id, "chars": "echo x\n", "yieldMs": yieldMs})
	if err != nil {
		return err
	}
	var data struct {
		Output, State string
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return err
	}
	if data.Output != "x\n" || data.State != "prompt" {
		return fmt.Errorf("write_stdin echo x returned %q in state %q", data.Output, data.State)
	}
	return nil
}

func (s *sidecar) end(id string) error {
	_, err := s.p.Invoke("write_stdin", map[string]any{"sessionId": id, "close": true})
	return err
}

func (s *sidecar) close() { s.p.Close() }
