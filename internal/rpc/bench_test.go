package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/logsink"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// benchChecks are checks of the size a real sidecar reports, so ping
// benchmarks pay for the Health a host really gets (~750 bytes).
func benchChecks(bool) map[string]protocol.Check {
	return map[string]protocol.Check{
		"ask_user": {Status: "ok", Message: "questions go to the host (ask_user.request); waits for the answers"},
		"config":   {Status: "ok", Message: "configuration valid"},
		"files":    {Status: "ok", Message: "workspace /tmp/ws, paths confined to it"},
		"plugins":  {Status: "ok", Message: "no plugin sources configured"},
		"sandbox":  {Status: "ok", Message: "backend bwrap, enforcement full, network off"},
		"web":      {Status: "ok", Message: "web_fetch registered; web_search not registered (no STEERABLE_WEB_SEARCH_API_KEY, TAVILY_API_KEY or STEERABLE_WEB_SEARCH_PROVIDER); direct egress"},
	}
}

// pipeServer serves a server with the built-in file tools over in-memory
// pipes, on a workspace holding f.txt (4 KiB of text), and returns its stdin
// and its stdout, past lifecycle.ready.
func pipeServer(tb testing.TB) (*io.PipeWriter, *bufio.Reader) {
	tb.Helper()
	dir, _ := filepath.EvalSymlinks(tb.TempDir())
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strings.Repeat("a line of text, 64 bytes long, as source files often have....\n", 64)), 0o644)
	ws, err := files.Open(dir, true)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	// Logging as serve does it, at info, through the stderr sink.
	sink := logsink.New(io.Discard, 0, nil)
	tb.Cleanup(func() { sink.Close(time.Second) })
	log := zerolog.New(sink).Level(zerolog.InfoLevel).With().Timestamp().Logger()
	reg := tools.NewRegistry()
	peer := NewPeer(log)
	store := readstate.NewStore()
	if err := reg.Register(protocol.SourceBuiltin, tools.Builtins(tools.Deps{Host: peer, Log: log, Registry: reg,
		Files: ws, ReadState: store, RequireReadBeforeWrite: true, FileMaxBytes: 1 << 20})...); err != nil {
		tb.Fatal(err)
	}
	if err := reg.Register(protocol.SourceBuiltin, noopTool()); err != nil {
		tb.Fatal(err)
	}
	srv, err := NewServer(Options{Version: "b", MaxFrameBytes: 1 << 20, MaxInflight: 64, ShutdownGrace: time.Second, Log: log},
		Services{Registry: reg, Dispatcher: tools.NewDispatcher(reg, nil, log), Checks: benchChecks, ReadState: store}, peer)
	if err != nil {
		tb.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() { srv.Serve(inR, outW); outW.Close(); close(done) }()
	r := bufio.NewReaderSize(outR, 1<<20)
	r.ReadString('\n') // lifecycle.ready
	<-srv.warmed       // its allocations are not the calls'
	tb.Cleanup(func() {
		inW.Close()
		io.Copy(io.Discard, r)
		<-done
	})
	return inW, r
}

const (
	readFileParams = `{"name":"read_file","arguments":{"path":"f.txt"}}`
	noopParams     = `{"name":"noop","arguments":{"path":"f.txt"}}`
)

// noopTool does nothing with a read_file-shaped argument: what tool.invoke
// costs besides the tool itself.
func noopTool() tools.Tool {
	type args struct {
		Path string `json:"path"`
	}
	return tools.New(protocol.ToolDescriptor{Name: "noop", Description: "nothing", Mode: protocol.ModeRead,
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
		func(context.Context, tools.Call, args) protocol.ToolResult {
			return tools.OK("done", map[string]any{"path": "f.txt"})
		})
}

// roundTrip sends one request and reads one line back.
func roundTrip(tb testing.TB, in io.Writer, out *bufio.Reader, id int, method, params string) string {
	frame := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `"`
	if params != "" {
		frame += `,"params":` + params
	}
	io.WriteString(in, frame+"}\n")
	line, err := out.ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	return line
}

// pipelined sends b.N copies of one request keeping 64 in flight.
func pipelined(b *testing.B, method, params string) {
	inW, r := pipeServer(b)
	slots := make(chan struct{}, 64)
	done := make(chan struct{})
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		defer close(done)
		for i := 0; i < b.N; i++ {
			if _, err := r.ReadString('\n'); err != nil {
				b.Error(err)
				return
			}
			<-slots
		}
	}()
	w := bufio.NewWriter(inW)
	tail := `,"method":"` + method + `","params":` + params + "}\n"
	for i := 0; i < b.N; i++ {
		select {
		case slots <- struct{}{}:
		default:
			w.Flush()
			slots <- struct{}{}
		}
		w.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + tail)
	}
	w.Flush()
	<-done
	b.StopTimer()
}

func sequential(b *testing.B, method, params string) {
	inW, r := pipeServer(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		roundTrip(b, inW, r, i+1, method, params)
	}
	b.StopTimer()
}

// BenchmarkPingPipelined measures system.ping through the whole server
// (stream, frame reader, dispatcher, reply) with 64 requests in flight.
func BenchmarkPingPipelined(b *testing.B) { pipelined(b, protocol.MethodPing, "null") }

// BenchmarkPingSequential measures one system.ping round trip at a time.
func BenchmarkPingSequential(b *testing.B) { sequential(b, protocol.MethodPing, "") }

// BenchmarkReadFileSequential: tool.invoke of read_file on a 4 KiB file, one
// at a time: the most common call an agent makes.
func BenchmarkReadFileSequential(b *testing.B) {
	sequential(b, protocol.MethodToolInvoke, readFileParams)
}

// BenchmarkToolInvokeSequential: tool.invoke of a tool that does nothing,
// one at a time: the per-call path alone.
func BenchmarkToolInvokeSequential(b *testing.B) {
	sequential(b, protocol.MethodToolInvoke, noopParams)
}

// BenchmarkToolInvokePipelined: the same, 64 in flight.
func BenchmarkToolInvokePipelined(b *testing.B) { pipelined(b, protocol.MethodToolInvoke, noopParams) }

// BenchmarkReadFilePipelined: read_file of 4 KiB, 64 in flight.
func BenchmarkReadFilePipelined(b *testing.B) {
	pipelined(b, protocol.MethodToolInvoke, readFileParams)
}

// TestPingReusesChecksOnlyWhileEqual: the cached encoding of the checks
// follows every change.
func TestPingReusesChecksOnlyWhileEqual(t *testing.T) {
	var c checksCache
	a := protocol.Checks{"x": {Status: "ok", Message: "one"}}
	if got := string(c.encode(a)); got != `{"x":{"status":"ok","message":"one"}}` {
		t.Fatalf("encode = %s", got)
	}
	b := protocol.Checks{"x": {Status: "warn", Message: "one"}}
	if got := string(c.encode(b)); got != `{"x":{"status":"warn","message":"one"}}` {
		t.Errorf("after a change: %s", got)
	}
	if got := string(c.encode(protocol.Checks{})); got != `{}` {
		t.Errorf("after all went: %s", got)
	}
}
