package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

// benchCheckpoints: what recording into the checkpoint store costs the writing tools. Two sidecars, one with STEERABLE_CHECKPOINTS=1
// and one with =0, each on its own workspace, take the same calls
// interleaved (on, off, then off, on, …), so load on the shared machine
// falls on both alike. Every call writes content the store has not seen:
// write_file of 4 KiB with a fresh counter, and edit_file of one line of a
// 1 MiB file.
func benchCheckpoints(bin, dir string, rounds int) []row {
	off := checkpointSidecar(bin, dir, "off")
	on := checkpointSidecar(bin, dir, "on")
	defer on.Close()
	defer off.Close()
	base := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 64) // 4 KiB
	write := func(c *benchkit.Proc, i int) error {
		content := fmt.Sprintf("%08d", i) + base[8:]
		_, err := c.Invoke("write_file", map[string]any{"path": "four.txt", "content": content})
		return err
	}
	edit := func(c *benchkit.Proc, i int) error {
		from, to := fmt.Sprintf("MARK-%08d", i), fmt.Sprintf("MARK-%08d", i+1)
		_, err := c.Invoke("edit_file", map[string]any{"path": "mib.txt", "edits": []any{map[string]any{"oldText": from, "newText": to}}})
		return err
	}
	return []row{
		interleaved(fmt.Sprintf("write_file 4 KiB, checkpoints on vs off (µs, p50 of %d)", rounds), on, off, rounds, write),
		interleaved(fmt.Sprintf("edit_file 1 MiB, checkpoints on vs off (ms, p50 of %d)", rounds), on, off, rounds, edit),
	}
}

// checkpointSidecar starts a sidecar on dir/name (a 1 MiB file mib.txt
// read, with a MARK-00000000 line in the middle) with checkpoints on or
// off, its state under dir/name.state.
func checkpointSidecar(bin, dir, name string) *benchkit.Proc {
	ws := filepath.Join(dir, name)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		fail(err)
	}
	path := filepath.Join(ws, "mib.txt")
	if err := makeText(path, 512<<10); err != nil {
		fail(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString("MARK-00000000\n")
		f.Close()
	}
	if err == nil {
		err = appendText(path, 512<<10)
	}
	if err != nil {
		fail(err)
	}
	flag := map[string]string{"on": "1", "off": "0"}[name]
	if v := os.Getenv("BENCH_CKPT_" + name); v != "" {
		flag = v // a calibration run: both sidecars alike
	}
	cmd := exec.Command(bin, "--quiet-ready", "--log-level", "error", "--cwd", ws)
	cmd.Dir, cmd.Stderr = ws, os.Stderr
	cmd.Env = append(os.Environ(), "STEERABLE_CHECKPOINTS="+flag, "STEERABLE_STATE_DIR="+filepath.Join(dir, name+".state"))
	c, err := benchkit.Start(cmd)
	if err != nil {
		fail(err)
	}
	if _, err := c.Invoke("read_file", map[string]any{"path": "mib.txt"}); err != nil {
		c.Close()
		fail(err)
	}
	return c
}

// appendText appends size bytes of makeText's lines to path.
func appendText(path string, size int64) error {
	tmp := path + ".tail"
	if err := makeText(tmp, size); err != nil {
		return err
	}
	defer os.Remove(tmp)
	tail, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(tail); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// interleaved times call(i) on both sidecars, alternating which goes
// first, and compares the medians; beside them, each sidecar's CPU time
// per call, which the shared machine's load bends far less (recording
// runs beside the call, so it shows there rather than in the latency).
func interleaved(metric string, on, off *benchkit.Proc, rounds int, call func(*benchkit.Proc, int) error) row {
	var dOn, dOff []time.Duration
	timed := func(c *benchkit.Proc, i int, into *[]time.Duration) {
		t := time.Now()
		if err := call(c, i); err != nil {
			fail(err)
		}
		*into = append(*into, time.Since(t))
	}
	cpuOn, cpuOff := cpuPerCall(on, rounds), cpuPerCall(off, rounds)
	for i := range rounds {
		if i%2 == 0 {
			timed(on, i, &dOn)
			timed(off, i, &dOff)
		} else {
			timed(off, i, &dOff)
			timed(on, i, &dOn)
		}
	}
	mOn, mOff := benchkit.Median(dOn), benchkit.Median(dOff)
	ratio := float64(mOn) / float64(mOff)
	unit, scale := "ms", 1000.0
	if strings.Contains(metric, "µs") {
		unit, scale = "µs", 1.0
	}
	show := func(d time.Duration) string { return fmt.Sprintf("%.1f %s", float64(d.Microseconds())/scale, unit) }
	return row{metric, "on " + show(mOn) + cpuOn(), "off " + show(mOff) + cpuOff(), fmt.Sprintf("%.2fx", ratio), "<= 1.10x", benchkit.Verdict(ratio <= 1.10)}
}

// cpuPerCall starts counting c's CPU time; the function it returns says
// how much each of calls took since, or "" where /proc has no figure.
func cpuPerCall(c *benchkit.Proc, calls int) func() string {
	start, err := benchkit.CPUTime(c.Pid(), true)
	return func() string {
		end, err2 := benchkit.CPUTime(c.Pid(), true)
		if err != nil || err2 != nil {
			return ""
		}
		return fmt.Sprintf(", CPU %.2f ms/call", float64((end-start).Microseconds())/1000/float64(calls))
	}
}
