package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

// benchFlood: with every in-flight slot taken, a host pipelines
// a flood of requests without waiting for replies. The sidecar's peak RSS
// must stay bounded (target < 64 MiB): it queues a few, lets the pipe push
// back, then answers the rest -32003 busy. The slots are filled with
// ask_user calls the client never answers; STEERABLE_ASK_USER_TIMEOUT_MS
// ends them after 3 s, so every flood request is answered in the end.
func benchFlood(bin, dir string) {
	fmt.Printf("%-44s %12s %12s\n", "flood with all 64 slots busy", "peak RSS MiB", "busy replies")
	for _, tc := range []struct {
		name string
		n    int
		pad  int
	}{{"200,000 tiny requests", 200_000, 0}, {"400 requests of 1 MiB", 400, 1 << 20}} {
		peak, busy := flood(bin, dir, tc.n, tc.pad)
		fmt.Printf("%-44s %12.1f %12d   target < 64 MiB: %s\n", tc.name, float64(peak)/(1<<20), busy, verdict(peak < 64<<20))
	}
	fmt.Println()
}

func flood(bin, dir string, n, pad int) (peak int64, busy int) {
	cmd := exec.Command(bin, "--cwd", dir, "--log-level", "error")
	cmd.Env = append(os.Environ(), "STEERABLE_ASK_USER_TIMEOUT_MS=3000", "STEERABLE_MAX_FRAME_BYTES=4194304")
	p := start(cmd)
	defer p.Close()
	must(p.AwaitNotification("lifecycle.ready"))
	ask := map[string]any{"name": "ask_user", "arguments": map[string]any{"intro": "", "questions": []map[string]any{{"id": "q", "text": "?"}}}}
	must(p.Send(64, "tool.invoke", ask))
	args := map[string]any{"name": "read_file", "arguments": map[string]any{"path": "nothing.txt", "pad": strings.Repeat("x", pad)}}
	codes := must1(p.Flood(n, "tool.invoke", args))
	return must1(benchkit.PeakRSS(p.Pid())), codes[-32003]
}
