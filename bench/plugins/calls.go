package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

// Calls are measured in interleaved batches — a batch direct, a batch
// through the sidecar, a batch of system.ping — so the load of a shared
// machine drifts over all three alike.
const (
	warmup = 50
	batch  = 100
)

// callFigures: tool.invoke through the sidecar (sandbox auto, and none)
// against tools/call straight to the same server with the Go SDK client.
func callFigures(t target, bin, ws string, n int) {
	if bin == "" {
		return
	}
	cfg, err := config(ws, t)
	if err != nil {
		return
	}
	for _, sb := range []string{"auto", "none"} {
		direct, through, ping, err := interleaved(t, bin, ws, cfg, sb, n)
		if err != nil {
			row(t.name, "tool.invoke through the sidecar ("+sb+")", "MISS", "-", err.Error())
			continue
		}
		med, dMed := benchkit.Median(through), benchkit.Median(direct)
		ceiling := time.Duration(1.2*float64(dMed)) + 100*time.Microsecond
		row(t.name, fmt.Sprintf("call p50 via sidecar (%s) vs direct SDK", sb), dur(med), dur(dMed),
			fmt.Sprintf("%s ≤ 1.2× + 100 µs = %s", benchkit.Verdict(med <= ceiling), dur(ceiling)))
		row(t.name, fmt.Sprintf("call p99 via sidecar (%s) vs direct SDK", sb), dur(benchkit.Percentile(through, 99)), dur(benchkit.Percentile(direct, 99)), "-")
		row(t.name, "  floor: direct p50 + system.ping p50", dur(dMed+benchkit.Median(ping)), "-", "one more process hop, no plugin code")
	}
}

// interleaved times n tools/call round trips straight to the server (Go
// SDK client, unsandboxed), n tool.invoke round trips of the same tool
// through a sidecar running it as a plugin, and n system.ping round trips
// of that sidecar, in alternating batches.
func interleaved(t target, bin, ws, cfg, sb string, n int) (direct, through, ping []time.Duration, err error) {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(t.argv[0], t.argv[1:]...)}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return nil, nil, nil, err
	}
	defer cs.Close()
	cmd := exec.Command(bin, "--log-level", "error")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "STEERABLE_PLUGINS_CONFIG="+cfg, "STEERABLE_SANDBOX="+sb)
	p, _, err := benchkit.StartReady(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	defer p.Close()
	params := map[string]any{"name": t.tool, "arguments": t.args}
	if _, err := p.Invoke(t.tool, t.args); err != nil {
		return nil, nil, nil, err
	}
	for i := -warmup; len(through) < n; i += batch {
		d, err := directBatch(ctx, cs, t)
		if err != nil {
			return nil, nil, nil, err
		}
		s, err := p.RoundTrips(batch, "tool.invoke", params)
		if err != nil {
			return nil, nil, nil, err
		}
		g, err := p.RoundTrips(batch, "system.ping", nil)
		if err != nil {
			return nil, nil, nil, err
		}
		if i >= 0 {
			direct, through, ping = append(direct, d...), append(through, s...), append(ping, g...)
		}
	}
	return direct, through, ping, nil
}

func directBatch(ctx context.Context, cs *mcp.ClientSession, t target) ([]time.Duration, error) {
	out := make([]time.Duration, 0, batch)
	for range batch {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: t.tool, Arguments: t.args})
		if err != nil || res.IsError {
			return nil, fmt.Errorf("tools/call %s: %v", t.tool, err)
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}
