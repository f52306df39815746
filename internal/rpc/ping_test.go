package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// writes records every write(2) the server makes on its stdout.
type writes struct {
	mu  sync.Mutex
	all [][]byte
	sig chan struct{}
}

func (w *writes) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.all = append(w.all, bytes.Clone(b))
	w.mu.Unlock()
	select {
	case w.sig <- struct{}{}:
	default:
	}
	return len(b), nil
}

// await returns the first write from index from on that contains s, and
// its index.
func (w *writes) await(t *testing.T, from int, s string) (int, []byte) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		w.mu.Lock()
		for i := from; i < len(w.all); i++ {
			if bytes.Contains(w.all[i], []byte(s)) {
				b := w.all[i]
				w.mu.Unlock()
				return i, b
			}
		}
		w.mu.Unlock()
		select {
		case <-w.sig:
		case <-deadline:
			t.Fatalf("no write contains %s", s)
		}
	}
}

// pingServer serves a server whose checks come from checks over a pipe,
// and returns its stdin and the record of its writes.
func pingServer(t *testing.T, checks func(settle bool) map[string]protocol.Check) (*io.PipeWriter, *writes) {
	t.Helper()
	reg := tools.NewRegistry()
	srv, err := NewServer(Options{Version: "t", MaxFrameBytes: 1 << 20, MaxInflight: 4, ShutdownGrace: time.Second, Log: zerolog.Nop()},
		Services{Registry: reg, Dispatcher: tools.NewDispatcher(reg, nil, zerolog.Nop()), Checks: checks}, NewPeer(zerolog.Nop()))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	out := &writes{sig: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() { srv.Serve(inR, out); close(done) }()
	out.await(t, 0, protocol.NotificationReady)
	t.Cleanup(func() { inW.Close(); <-done })
	return inW, out
}

func pings(from, n int) string {
	var b strings.Builder
	for id := from; id < from+n; id++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"system.ping"}`+"\n", id)
	}
	return b.String()
}

// TestPipelinedPingsShareOneWriteAndOneReadingOfTheChecks: once a ping
// has settled the checks, the pings the host pipelines — the frames of
// one read — are answered on the read loop with one write and one call of
// Checks, and the next batch reads the checks again, so a ping always
// reports the state after it was sent.
func TestPipelinedPingsShareOneWriteAndOneReadingOfTheChecks(t *testing.T) {
	var calls atomic.Int32
	var state atomic.Value
	state.Store("first")
	in, out := pingServer(t, func(bool) map[string]protocol.Check {
		calls.Add(1)
		return map[string]protocol.Check{"x": {Status: protocol.CheckOK, Message: state.Load().(string)}}
	})
	io.WriteString(in, pings(1, 1))
	i, _ := out.await(t, 0, `"id":1,`) // on a worker: it may wait for the checks to settle
	before := calls.Load()

	const n = 50
	io.WriteString(in, pings(2, n-1)+`{"jsonrpc":"2.0","id":99,"method":"system.ping","params":{"x":1}}`+"\n")
	i, batch := out.await(t, i+1, `"id":2,`)
	if got := bytes.Count(batch, []byte("\n")); got != n {
		t.Errorf("the batch of %d pings was answered in writes of %d frames and more:\n%s", n, got, batch)
	}
	if !bytes.Contains(batch, []byte(`"id":99,"error":{"code":-32602`)) {
		t.Errorf("a ping with params in the batch was not refused:\n%s", batch)
	}
	if got := calls.Load() - before; got != 1 {
		t.Errorf("Checks called %d times for one batch of pings, want 1", got)
	}

	state.Store("second")
	io.WriteString(in, pings(100, 1))
	_, b := out.await(t, i+1, `"id":100,`)
	var reply struct {
		Result protocol.Health `json:"result"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &reply); err != nil || reply.Result.Checks["x"].Message != "second" {
		t.Errorf("a ping after the checks changed = %s (%v), want the new checks", b, err)
	}
}

// TestPingBeforeTheChecksSettleLeavesTheReadLoopFree: until a ping has
// waited for the checks (the sandbox probe at boot), pings run on workers,
// so the read loop still serves everything else.
func TestPingBeforeTheChecksSettleLeavesTheReadLoopFree(t *testing.T) {
	release := make(chan struct{})
	in, out := pingServer(t, func(settle bool) map[string]protocol.Check {
		if settle {
			<-release
		}
		return map[string]protocol.Check{}
	})
	io.WriteString(in, pings(1, 2)+`{"jsonrpc":"2.0","id":3,"method":"no.such"}`+"\n")
	out.await(t, 0, `"id":3,"error":{"code":-32601`)
	close(release)
	out.await(t, 0, `"id":1,"result"`)
	out.await(t, 0, `"id":2,"result"`)
}

// TestReadLoopAnswersGoOutBeforeItWaits: what the read loop has answered
// (here a frame that is not JSON) is written before it waits — for a
// light slot or for room in the queue — not when it next reads.
func TestReadLoopAnswersGoOutBeforeItWaits(t *testing.T) {
	t.Run("light slots", func(t *testing.T) {
		release := make(chan struct{})
		in, out := pingServer(t, func(settle bool) map[string]protocol.Check {
			if settle {
				<-release
			}
			return map[string]protocol.Check{}
		})
		defer close(release)
		// Unsettled pings take every light slot; the next one waits.
		io.WriteString(in, pings(1, minLightCap)+"not json\n"+pings(minLightCap+1, 1))
		out.await(t, 0, `"id":null,"error":{"code":-32700`)
	})
	t.Run("queue", func(t *testing.T) {
		started := make(chan string, 10)
		h := startHost(t, hostOpts{
			opts:   Options{MaxInflight: 2},
			tools:  func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(started)} },
			limits: func(l *limits) { l.queue, l.shedAfter = 2, 2*time.Second },
		})
		fillSlots(t, h, started, 2)
		h.send(`{"jsonrpc":"2.0","id":3,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":600000}}}`)
		h.send("not json\n" + `{"jsonrpc":"2.0","id":4,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":600000}}}`) // one read
		t0 := time.Now()
		h.await("null").wantError(t, protocol.CodeParse, "parse error")
		if d := time.Since(t0); d >= 2*time.Second {
			t.Errorf("the answer came after %v, once the reader stopped waiting for room", d)
		}
		cancelSlots(h, 4) // read once the reader gives up waiting
	})
}
