package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/bench/internal/benchkit"
	"steerable.dev/sidecar/internal/plugins"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/tools"
)

// fixed is a plugins.Source of one spec.
type fixed []plugins.Spec

func (fixed) Name() string                                       { return "bench" }
func (f fixed) Discover(context.Context) ([]plugins.Spec, error) { return f, nil }

type nopHost struct{}

func (nopHost) Notify(context.Context, string, any) error { return nil }

// loadOnce is one start-to-registered: a fresh manager loads the server
// under the backend; the clock covers Load only.
func loadOnce(t target, backend, ws string) (time.Duration, int, error) {
	sb, err := sandbox.Open(context.Background(), sandbox.Options{Choice: backend, Workspace: ws, TempParent: os.TempDir(), Environ: os.Environ()})
	if err != nil {
		return 0, 0, err
	}
	defer sb.Close()
	if got := sb.Info().Backend; got != backend {
		return 0, 0, fmt.Errorf("backend %s unusable: %s", backend, sb.Summary())
	}
	reg := tools.NewRegistry()
	m := plugins.NewManager(reg, plugins.NewSandboxLauncher(sb), nopHost{}, zerolog.Nop(), plugins.Options{
		Workspace: ws, TempDir: sb.TempDir(), Environ: sb.Env(sandbox.EnvScrubbed), Version: "bench",
		StartTimeout: 30 * time.Second, CallTimeout: 30 * time.Second, MaxOutputBytes: 1 << 20, MaxMessageBytes: 16 << 20, MaxTools: 2000,
	})
	defer m.Close(0)
	spec := plugins.Spec{Name: "p", Source: plugins.SourceInstalled, Origin: "bench", Command: t.argv[0], Args: t.argv[1:]}
	t0 := time.Now()
	err = m.Load(context.Background(), fixed{spec})
	return time.Since(t0), reg.Len(), err
}

// loads is the median start-to-registered of runs loads.
func loads(t target, backend, ws string, runs int) (time.Duration, int, error) {
	var ds []time.Duration
	var n int
	for range runs {
		d, tools, err := loadOnce(t, backend, ws)
		if err != nil {
			return 0, 0, err
		}
		ds, n = append(ds, d), tools
	}
	return benchkit.Median(ds), n, nil
}

// startFigures: in process under none and bwrap, then the sidecar's
// spawn-to-ready with and without the plugin, interleaved.
func startFigures(t target, bin, ws string, runs int) {
	ref := "MISS"
	if d, err := directStarts(t, runs); err == nil {
		ref = dur(d)
	}
	for _, backend := range []string{"none", "bwrap"} {
		d, n, err := loads(t, backend, ws, runs)
		if err != nil {
			row(t.name, "start → registered, in process, "+backend, "MISS", "-", err.Error())
			continue
		}
		row(t.name, fmt.Sprintf("start → %d tools registered, %s", n, backend), dur(d), ref, fmt.Sprintf("ref: SDK connect + tools/list, median of %d", runs))
	}
	if bin == "" {
		return
	}
	cfg, err := config(ws, t)
	if err != nil {
		row(t.name, "spawn → ready", "MISS", "-", err.Error())
		return
	}
	with, without, err := readyPairs(runs, func() (time.Duration, error) { return readyOnce(bin, ws, cfg, true) },
		func() (time.Duration, error) { return readyOnce(bin, ws, cfg, false) })
	if err != nil {
		row(t.name, "spawn → ready", "MISS", "-", err.Error())
		return
	}
	row(t.name, "sidecar spawn → ready, with it (without)", dur(benchkit.Median(with)), dur(benchkit.Median(without)), fmt.Sprintf("auto sandbox, median of %d", runs))
}

// readyOnce is one spawn-to-ready of the binary, with the plugin config
// or without any.
func readyOnce(bin, ws, cfg string, plugin bool) (time.Duration, error) {
	cmd := exec.Command(bin, "--log-level", "error")
	cmd.Dir = ws
	cmd.Env = os.Environ()
	if plugin {
		cmd.Env = append(cmd.Env, "STEERABLE_PLUGINS_CONFIG="+cfg)
	}
	p, d, err := benchkit.StartReady(cmd)
	if err != nil {
		return 0, err
	}
	p.Close()
	return d, nil
}

// manyTools: a server listing 500 tools against the same server with its
// usual 21, in process (none: the registration, not the sandbox).
func manyTools(many, few target, runs int) {
	ws, _ := os.MkdirTemp("", "bench-plugins-many-")
	defer os.RemoveAll(ws)
	dMany, n, err := loads(many, "none", ws, runs)
	if err != nil {
		row(many.name, "start → registered", "MISS", "-", err.Error())
		return
	}
	dFew, nFew, err := loads(few, "none", ws, runs)
	if err != nil {
		row(many.name, "start → registered", "MISS", "-", err.Error())
		return
	}
	row(many.name, fmt.Sprintf("start → %d tools registered (%d tools)", n, nFew), dur(dMany), dur(dFew), benchkit.Verdict(dMany <= 100*time.Millisecond)+" ≤ 100 ms")
	direct, err := directStarts(many, runs)
	if err != nil {
		row(many.name, "SDK connect + tools/list", "MISS", "-", err.Error())
		return
	}
	ours := dMany - direct
	row(many.name, "  ours minus the SDK client's start + list", dur(ours), dur(direct), benchkit.Verdict(ours <= 100*time.Millisecond)+" ≤ 100 ms (the registration's own cost)")
}

// directStarts is the reference of start → registered: the Go SDK client
// starting the same server unsandboxed, connecting and listing its tools.
func directStarts(t target, runs int) (time.Duration, error) {
	var ds []time.Duration
	for range runs {
		cmd := exec.Command(t.argv[0], t.argv[1:]...)
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
		t0 := time.Now()
		cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			return 0, err
		}
		_, err = cs.ListTools(context.Background(), nil)
		ds = append(ds, time.Since(t0))
		cs.Close()
		if err != nil {
			return 0, err
		}
	}
	return benchkit.Median(ds), nil
}

// readyBeside is the sidecar's spawn → ready with the 500-tool server as
// its plugin, bin against base, interleaved: the registration's cost in the
// real binary, before and after. Ready comes once the plugin is registered.
func readyBeside(many target, bin, base, ws string, runs int) {
	cfg, err := config(ws, many)
	if err != nil {
		row(many.name, "spawn → ready", "MISS", "-", err.Error())
		return
	}
	ours, theirs, err := readyPairs(runs, func() (time.Duration, error) { return readyOnce(bin, ws, cfg, true) },
		func() (time.Duration, error) { return readyOnce(base, ws, cfg, true) })
	if err != nil {
		row(many.name, "spawn → ready", "MISS", "-", err.Error())
		return
	}
	row(many.name, "sidecar spawn → ready with it, ours (base)", dur(benchkit.Median(ours)), dur(benchkit.Median(theirs)), fmt.Sprintf("auto sandbox, median of %d", runs))
}

// readyPairs runs a then b, runs times, and returns each one's figures.
func readyPairs(runs int, a, b func() (time.Duration, error)) (as, bs []time.Duration, err error) {
	for range runs {
		da, err := a()
		if err != nil {
			return nil, nil, err
		}
		db, err := b()
		if err != nil {
			return nil, nil, err
		}
		as, bs = append(as, da), append(bs, db)
	}
	return as, bs, nil
}
