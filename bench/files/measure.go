package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

// stats is the median and the spread (min–max) of durations.
func stats(d []time.Duration) (med, lo, hi time.Duration) {
	lo, hi = benchkit.Range(d)
	return benchkit.Median(d), lo, hi
}

// sidecar starts the binary serving dir; its stderr is ours (it logs only
// errors).
func sidecar(bin, dir string) (*benchkit.Proc, error) {
	cmd := exec.Command(bin, "--quiet-ready", "--log-level", "error", "--cwd", dir)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	return benchkit.Start(cmd)
}

// textLineLen is the length of each line makeText writes.
const textLineLen = len("00000000 the quick brown fox jumps over the lazy dog, again and again\n")

// sidecarAfterRead starts the sidecar on dir and reads name in it, so the
// session may edit it.
func sidecarAfterRead(bin, dir, name string) *benchkit.Proc {
	c, err := sidecar(bin, dir)
	if err != nil {
		fail(err)
	}
	if _, err := c.Invoke("read_file", map[string]any{"path": name}); err != nil {
		c.Close()
		fail(err)
	}
	return c
}

// makeText writes size bytes of uniquely numbered text lines to path.
func makeText(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var line []byte
	for i, written := 0, int64(0); written < size; i++ {
		line = fmt.Appendf(line[:0], "%08d the quick brown fox jumps over the lazy dog, again and again\n", i)
		n := min(int64(len(line)), size-written)
		w.Write(line[:n])
		written += n
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchBigRead: read_file of a big file against sha256sum of the same file
// (page cache warm for both), and the sidecar's peak RSS.
func benchBigRead(bin, dir string, size int64) []row {
	path := filepath.Join(dir, "big.txt")
	if err := makeText(path, size); err != nil {
		fail(err)
	}
	defer os.Remove(path)
	var ref, ours []time.Duration
	for range 3 {
		t := time.Now()
		if out, err := exec.Command("sha256sum", path).CombinedOutput(); err != nil {
			fail(fmt.Errorf("sha256sum: %v: %s", err, out))
		}
		ref = append(ref, time.Since(t))
	}
	c, err := sidecar(bin, dir)
	if err != nil {
		fail(err)
	}
	defer c.Close()
	for range 3 {
		t := time.Now()
		if _, err := c.Invoke("read_file", map[string]any{"path": "big.txt"}); err != nil {
			fail(err)
		}
		ours = append(ours, time.Since(t))
	}
	rss, err := benchkit.PeakRSS(c.Pid())
	if err != nil {
		rss = -1
	}
	om, olo, ohi := stats(ours)
	rm, rlo, rhi := stats(ref)
	ratio := float64(om) / float64(rm)
	gib := float64(size) / (1 << 30)
	return []row{
		{fmt.Sprintf("read_file %.2g GiB (s, median of 3)", gib), fmt.Sprintf("%.2f (%.2f-%.2f)", om.Seconds(), olo.Seconds(), ohi.Seconds()),
			fmt.Sprintf("sha256sum %.2f (%.2f-%.2f)", rm.Seconds(), rlo.Seconds(), rhi.Seconds()), fmt.Sprintf("%.2fx", ratio), "<= 1.5x", benchkit.Verdict(ratio <= 1.5)},
		{"  sidecar peak RSS (VmHWM)", fmt.Sprintf("%.1f MiB", float64(rss)/(1<<20)), "-", "-", "< 64 MiB", benchkit.Verdict(rss > 0 && rss < 64<<20)},
	}
}

// benchEdit: edit_file on a 10 MiB file, one changed line per call, timed
// by the client (the whole round trip).
func benchEdit(bin, dir string) row {
	path := filepath.Join(dir, "ten.txt")
	if err := makeText(path, 10<<20); err != nil {
		fail(err)
	}
	const marker = "00070000 the quick brown fox"
	c := sidecarAfterRead(bin, dir, "ten.txt")
	defer c.Close()
	var d []time.Duration
	from, to := marker, strings.ToUpper(marker)
	for range 21 {
		t := time.Now()
		_, err := c.Invoke("edit_file", map[string]any{"path": "ten.txt", "edits": []any{map[string]any{"oldText": from, "newText": to}}})
		if err != nil {
			fail(err)
		}
		d = append(d, time.Since(t))
		from, to = to, from
	}
	med, lo, hi := stats(d)
	return row{"edit_file 10 MiB (ms, median of 21)", fmt.Sprintf("%.1f (%.1f-%.1f)", ms(med), ms(lo), ms(hi)), "-", "-", "< 100 ms", benchkit.Verdict(med < 100*time.Millisecond)}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
