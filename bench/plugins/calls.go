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
// against tools/call straight to the same server with the Go SDK client;
// with base, the same through the base build too.
func callFigures(t target, bin, base, ws string, n int) {
	if bin == "" {
		return
	}
	cfg, err := config(ws, t)
	if err != nil {
		return
	}
	for _, sb := range []string{"auto", "none"} {
		r, err := interleaved(t, bin, base, ws, cfg, sb, n)
		if err != nil {
			row(t.name, "tool.invoke through the sidecar ("+sb+")", "MISS", "-", err.Error())
			continue
		}
		med, dMed := benchkit.Median(r.through), benchkit.Median(r.direct)
		ceiling := time.Duration(1.2*float64(dMed)) + 100*time.Microsecond
		row(t.name, fmt.Sprintf("call p50 via sidecar (%s) vs direct SDK", sb), dur(med), dur(dMed),
			fmt.Sprintf("%s ≤ 1.2× + 100 µs = %s", benchkit.Verdict(med <= ceiling), dur(ceiling)))
		row(t.name, fmt.Sprintf("call p99 via sidecar (%s) vs direct SDK", sb), dur(benchkit.Percentile(r.through, 99)), dur(benchkit.Percentile(r.direct, 99)), "-")
		if base != "" {
			bMed := benchkit.Median(r.base)
			row(t.name, fmt.Sprintf("  call p50 via the base build (%s)", sb), dur(bMed), dur(dMed),
				fmt.Sprintf("%s ≤ %s; ours %+.0f µs", benchkit.Verdict(bMed <= ceiling), dur(ceiling), float64(med-bMed)/1e3))
		}
		row(t.name, "  floor: direct p50 + system.ping p50", dur(dMed+benchkit.Median(r.ping)), "-", "one more process hop, no plugin code")
	}
}

// rounds are the round trips of one interleaved run.
type rounds struct {
	direct, through, base, ping []time.Duration
}

// interleaved times n tools/call round trips straight to the server (Go
// SDK client, unsandboxed), n tool.invoke round trips of the same tool
// through a sidecar running it as a plugin (and through the base build,
// when given), and n system.ping round trips of that sidecar, in
// alternating batches.
func interleaved(t target, bin, base, ws, cfg, sb string, n int) (rounds, error) {
	var r rounds
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(t.argv[0], t.argv[1:]...)}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return r, err
	}
	defer cs.Close()
	params := map[string]any{"name": t.tool, "arguments": t.args}
	p, err := pluginSidecar(bin, ws, cfg, sb, t)
	if err != nil {
		return r, err
	}
	defer p.Close()
	var b *benchkit.Proc
	if base != "" {
		if b, err = pluginSidecar(base, ws, cfg, sb, t); err != nil {
			return r, fmt.Errorf("the base build: %w", err)
		}
		defer b.Close()
	}
	for i := -warmup; len(r.through) < n; i += batch {
		d, err := directBatch(ctx, cs, t)
		if err != nil {
			return r, err
		}
		s, err := p.RoundTrips(batch, "tool.invoke", params)
		if err != nil {
			return r, err
		}
		var o []time.Duration
		if b != nil {
			if o, err = b.RoundTrips(batch, "tool.invoke", params); err != nil {
				return r, err
			}
		}
		g, err := p.RoundTrips(batch, "system.ping", nil)
		if err != nil {
			return r, err
		}
		if i >= 0 {
			r.direct, r.through, r.base, r.ping = append(r.direct, d...), append(r.through, s...), append(r.base, o...), append(r.ping, g...)
		}
	}
	return r, nil
}

// pluginSidecar starts bin with the target as its plugin and calls the
// tool once.
func pluginSidecar(bin, ws, cfg, sb string, t target) (*benchkit.Proc, error) {
	cmd := exec.Command(bin, "--log-level", "error")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "STEERABLE_PLUGINS_CONFIG="+cfg, "STEERABLE_SANDBOX="+sb)
	p, _, err := benchkit.StartReady(cmd)
	if err != nil {
		return nil, err
	}
	if _, err := p.Invoke(t.tool, t.args); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
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
