package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// idleProcess is a Process that is never started: registration only needs
// its sandbox description.
type idleProcess struct{}

func (idleProcess) Stdin() io.WriteCloser           { return nil }
func (idleProcess) Stdout() io.ReadCloser           { return nil }
func (idleProcess) Stderr() io.ReadCloser           { return nil }
func (idleProcess) Done() <-chan struct{}           { return nil }
func (idleProcess) Exit() string                    { return "" }
func (idleProcess) Stop(time.Duration)              {}
func (idleProcess) Sandbox() protocol.PluginSandbox { return protocol.PluginSandbox{Backend: "none"} }

// generated is what mcptest's -tools N lists.
func generated(n int) []*mcp.Tool {
	out := make([]*mcp.Tool, n)
	for i := range out {
		out[i] = &mcp.Tool{Name: fmt.Sprintf("gen_%d", i), Description: fmt.Sprintf("Generated tool number %d: look up record %d in the catalogue.", i, i),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"id":    map[string]any{"type": "string", "description": "record id"},
				"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
				"mode":  map[string]any{"enum": []any{"fast", "full"}},
			}, "required": []any{"id"}}}
	}
	return out
}

// registerOnly is a manager and plugin that register without a server.
func registerOnly() (*Manager, *plugin) {
	m := NewManager(tools.NewRegistry(), nil, nil, zerolog.Nop(), Options{MaxOutputBytes: 1 << 20, CallTimeout: time.Second})
	return m, &plugin{spec: Spec{Name: "many"}, m: m}
}

// BenchmarkRegister500 is the registration of a 500-tool server alone:
// descriptors built, schemas' shapes checked, one atomic swap into the
// registry. The schemas' compile, after it in the background, is waited
// for off the clock (BenchmarkCompile500 is its cost).
func BenchmarkRegister500(b *testing.B) {
	list := generated(500)
	for b.Loop() {
		m, p := registerOnly()
		names, err := p.register(started{srv: &server{proc: idleProcess{}}, list: list}, nil)
		if err != nil || len(names) != 500 {
			b.Fatal(err)
		}
		b.StopTimer()
		m.Close(0)
		b.StartTimer()
	}
}

// BenchmarkCompile500 is the background compile of the 500 schemas that
// BenchmarkRegister500 registers.
func BenchmarkCompile500(b *testing.B) {
	list := generated(500)
	for b.Loop() {
		b.StopTimer()
		reg := tools.NewRegistry()
		var ts []tools.Tool
		for _, t := range list {
			tool, err := newMCPTool(t, &server{proc: idleProcess{}}, mapping{}, Spec{}, time.Second, reg)
			if err != nil {
				b.Fatal(err)
			}
			ts = append(ts, tool)
		}
		if err := reg.Register("plugin:many", ts...); err != nil {
			b.Fatal(err)
		}
		names := reg.Names("plugin:many")
		b.StartTimer()
		for _, n := range names {
			if e, _ := reg.Lookup(n); e != nil {
				if _, err := e.Schema(); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

func TestRegister500Lists500(t *testing.T) {
	m, p := registerOnly()
	defer m.Close(0)
	names, err := p.register(started{srv: &server{proc: idleProcess{}}, list: generated(500)}, nil)
	if err != nil || len(names) != 500 || m.reg.Len() != 500 || names[499] != "gen_499" {
		t.Fatalf("%d names, %v", len(names), err)
	}
	m.bg.Wait()
	if why := p.schemas.String(); why != "" {
		t.Errorf("the background compile found problems in valid schemas: %s", why)
	}
}

// BenchmarkLoad500 is a whole start → registered of a server listing 500
// tools (and its 21 usual ones), tool_search observing the registry as in
// the sidecar: process start, initialize, tools/list, registration.
func BenchmarkLoad500(b *testing.B) {
	f := newFixture(b, "")
	spec := testServer(b, "many", "-read-file=false", "-tools", "500")
	for b.Loop() {
		b.StopTimer()
		reg := tools.NewRegistry()
		tools.NewToolSearch(reg)
		m := NewManager(reg, NewSandboxLauncher(f.sb), f.host, zerolog.Nop(), f.m.opts)
		b.StartTimer()
		if err := m.Load(context.Background(), specs{spec}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		m.Close(0)
		b.StartTimer()
	}
}

// BenchmarkCallInterleaved is one echo call through the dispatch pipeline,
// in process (what the sidecar adds to tools/call, without the host's
// pipe), against the same call with the SDK client straight to the same
// server, in alternating batches of 100 so both see the same load on a
// shared machine; it reports each one's median round trip.
func BenchmarkCallInterleaved(b *testing.B) {
	f := newFixture(b, "")
	if err := f.m.Load(context.Background(), specs{testServer(b, "t", "-read-file=false")}); err != nil {
		b.Fatal(err)
	}
	d := tools.NewDispatcher(f.reg, nil, zerolog.Nop())
	inv := tools.Invocation{ToolCall: protocol.ToolCall{ID: "c", Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}}
	cmd := exec.Command(serverExe, "-read-file=false")
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: mcpVersion})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	var direct, through []time.Duration
	timed := func(into *[]time.Duration, call func() bool) {
		for range 100 {
			t0 := time.Now()
			if !call() {
				b.Fatal("the call failed")
			}
			*into = append(*into, time.Since(t0))
		}
	}
	for b.Loop() {
		timed(&direct, func() bool {
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
			return err == nil
		})
		timed(&through, func() bool { return d.Dispatch(context.Background(), inv).Success })
	}
	b.ReportMetric(float64(median(direct))/1e3, "direct-p50-µs")
	b.ReportMetric(float64(median(through))/1e3, "dispatch-p50-µs")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
