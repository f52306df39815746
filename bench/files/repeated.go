package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

// The repeated-lines case: a file of identical lines against
// an oldText (or a hunk's context) of many identical lines whose last line
// differs, so that a naive matcher compares nearly every line at nearly
// every position.
const (
	repeatedLine  = "\tsame line of text\n"
	repeatedLines = 300_000
	oldTextLines  = 3_000
)

func repeatedOld() string {
	return strings.Repeat(repeatedLine, oldTextLines-1) + "\tanother line\n"
}

// benchRepeated: edit_file and apply_patch on the repeated-lines file (time
// of the refused call, the whole round trip), and how fast a cancel is
// answered: once for that case (cancel after 1 s, as in the issue) and once
// for a heavier call that is still running when the cancel arrives (many
// such edits on a 64 MiB file).
func benchRepeated(bin, dir string) []row {
	writeFile(filepath.Join(dir, "same.txt"), strings.Repeat(repeatedLine, repeatedLines))
	c := sidecarAfterRead(bin, dir, "same.txt")
	defer c.Close()
	edit := map[string]any{"name": "edit_file", "arguments": map[string]any{"path": "same.txt",
		"edits": []any{map[string]any{"oldText": repeatedOld(), "newText": "x\n"}}}}
	var hunk strings.Builder
	hunk.WriteString("*** Begin Patch\n*** Update File: same.txt\n@@\n")
	for _, l := range strings.SplitAfter(strings.TrimSuffix(repeatedOld(), "\n"), "\n") {
		hunk.WriteString(" " + l)
	}
	hunk.WriteString("\n+added\n*** End Patch")
	patch := map[string]any{"name": "apply_patch", "arguments": map[string]any{"patch": hunk.String()}}
	rows := []row{
		timedCall(c, "edit_file 300k same lines, 3k-line oldText", edit),
		timedCall(c, "apply_patch 300k same lines, 3k-line hunk", patch),
	}
	cancelAfter := time.Second
	cc, err := c.CallCancel("tool.invoke", edit, cancelAfter, cancelWait)
	rows = append(rows, cancelRow("  cancel at 1 s, answered after", cc, err))
	return append(rows, benchHeavyCancel(bin, dir))
}

// benchHeavyCancel cancels, at a dozen points of its run in turn, an
// edit_file that runs for seconds even with linear matching: 100 edits of lines near the end of a 64 MiB file (the default size
// limit) and a last one that matches nothing, so nothing is written. The
// request stays small, so the figure is the tool's answer to a cancel, not
// the time to read a large frame. The row is the slowest answer (and the
// median).
func benchHeavyCancel(bin, dir string) row {
	const size = 64<<20 - 1
	if err := makeText(filepath.Join(dir, "big64.txt"), size); err != nil {
		fail(err)
	}
	c := sidecarAfterRead(bin, dir, "big64.txt")
	defer c.Close()
	last := size/textLineLen - 2 // the last whole line
	var edits []any
	for k := range 100 {
		edits = append(edits, map[string]any{"oldText": fmt.Sprintf("%08d the quick", last-37*k), "newText": "x"})
	}
	edits = append(edits, map[string]any{"oldText": "no such line", "newText": "x"})
	params := map[string]any{"name": "edit_file", "arguments": map[string]any{"path": "big64.txt", "edits": edits}}
	const metric = "  cancel during edit_file on 64 MiB"
	whole, err := c.CallCancel("tool.invoke", params, cancelWait, cancelWait) // uncancelled: how long it runs
	if err != nil {
		return cancelRow(metric, whole, err)
	}
	var latencies []time.Duration
	step := max(50*time.Millisecond, whole.Total/12)
	for at := step / 2; at < whole.Total; at += step {
		cc, err := c.CallCancel("tool.invoke", params, at, cancelWait)
		if err != nil {
			return cancelRow(metric, cc, err)
		}
		if cc.Latency > 0 {
			latencies = append(latencies, cc.Latency)
		}
	}
	if len(latencies) == 0 {
		return row{metric, "every call ended before its cancel", "-", "-", "<= 100 ms", "-"}
	}
	_, worst := benchkit.Range(latencies)
	return row{fmt.Sprintf("%s (%.0f ms), worst of %d", metric, ms(whole.Total), len(latencies)),
		fmt.Sprintf("%.1f ms (median %.1f)", ms(worst), ms(benchkit.Median(latencies))), "-", "-", "<= 100 ms", benchkit.Verdict(worst <= 100*time.Millisecond)}
}

// timedCall times one tool.invoke that is expected to be refused (the
// oldText matches nowhere); median of 3.
func timedCall(c *benchkit.Proc, metric string, params map[string]any) row {
	var d []time.Duration
	for range 3 {
		t := time.Now()
		if _, err := c.Call("tool.invoke", params); err != nil {
			fail(err)
		}
		d = append(d, time.Since(t))
	}
	med, lo, hi := stats(d)
	return row{metric + " (ms)", fmt.Sprintf("%.0f (%.0f-%.0f)", ms(med), ms(lo), ms(hi)), "-", "-", "<= 200 ms", benchkit.Verdict(med <= 200*time.Millisecond)}
}

// cancelWait bounds the wait for a cancelled call's reply.
const cancelWait = 2 * time.Minute

func cancelRow(metric string, c Cancelled, err error) row {
	switch {
	case err != nil:
		return row{metric, err.Error(), "-", "-", "<= 100 ms", "MISS"}
	case c.Latency == 0:
		return row{metric, fmt.Sprintf("done in %.0f ms, before the cancel", ms(c.Total)), "-", "-", "<= 100 ms", "ok"}
	}
	return row{metric, fmt.Sprintf("%.0f ms", ms(c.Latency)), "-", "-", "<= 100 ms", benchkit.Verdict(c.Latency <= 100*time.Millisecond)}
}

// Cancelled is benchkit's, named here for the row helpers.
type Cancelled = benchkit.Cancelled

func writeFile(path, content string) {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		fail(err)
	}
}
