package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// frame is one decoded message from the sidecar.
type frame struct {
	ID     json.RawMessage     `json:"id"`
	Method string              `json:"method"`
	Params json.RawMessage     `json:"params"`
	Result json.RawMessage     `json:"result"`
	Error  *protocol.WireError `json:"error"`
	raw    string
}

// testHost plays the host over in-memory pipes: it writes frames to the
// sidecar's stdin, reads its stdout, routes replies to waiters by id, keeps
// notifications, and answers reverse requests with onReverse.
type testHost struct {
	t      *testing.T
	srv    *Server
	stdin  *io.PipeWriter
	done   chan string
	closed chan struct{}

	mu        sync.Mutex
	waiters   map[string]chan frame
	replies   map[string]frame
	notes     []frame
	noteSig   chan struct{}
	onReverse func(f frame) (result any, err *protocol.WireError)
}

type hostOpts struct {
	opts      Options
	tools     func(host tools.Host) []tools.Tool
	approver  bool
	search    bool // register tool_search over the registry
	onReverse func(f frame) (any, *protocol.WireError)
	readState *readstate.Store
	limits    func(*limits) // adjusts the backpressure bounds before Serve
}

func startHost(t *testing.T, ho hostOpts) *testHost {
	t.Helper()
	log := zerolog.Nop()
	peer := NewPeer(log)
	reg := tools.NewRegistry()
	if ho.tools != nil {
		if err := reg.Register(protocol.SourceBuiltin, ho.tools(peer)...); err != nil {
			t.Fatal(err)
		}
	}
	if ho.search {
		if err := reg.Register(protocol.SourceBuiltin, tools.NewToolSearch(reg)); err != nil {
			t.Fatal(err)
		}
	}
	var approver tools.Approver
	if ho.approver {
		approver = peer
	}
	o := ho.opts
	if o.MaxFrameBytes == 0 {
		o.MaxFrameBytes = 1 << 20
	}
	if o.MaxInflight == 0 {
		o.MaxInflight = 8
	}
	if o.ShutdownGrace == 0 {
		o.ShutdownGrace = 5 * time.Second
	}
	o.Version, o.Log = "test", log
	srv, err := NewServer(o, Services{Registry: reg, Dispatcher: tools.NewDispatcher(reg, approver, log), HostTools: tools.NewHostTools(reg, peer), ReadState: ho.readState}, peer)
	if err != nil {
		t.Fatal(err)
	}
	if ho.limits != nil {
		ho.limits(&srv.d.limits)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &testHost{
		t: t, srv: srv, stdin: inW, done: make(chan string, 1), closed: make(chan struct{}),
		waiters: map[string]chan frame{}, replies: map[string]frame{}, noteSig: make(chan struct{}, 1000),
		onReverse: ho.onReverse,
	}
	go func() {
		h.done <- srv.Serve(inR, outW)
		outW.Close()
	}()
	go h.readLoop(outR)
	h.waitNote(protocol.NotificationReady)
	t.Cleanup(func() {
		h.stdin.Close()
		select {
		case <-h.done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop after stdin closed")
		}
		<-h.closed
	})
	return h
}

func (h *testHost) readLoop(r io.Reader) {
	defer close(h.closed)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var f frame
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			h.t.Errorf("sidecar wrote a non-JSON frame: %q", sc.Text())
			continue
		}
		f.raw = sc.Text()
		switch {
		case f.Method != "" && f.ID != nil:
			go h.answerReverse(f)
		case f.Method != "":
			h.mu.Lock()
			h.notes = append(h.notes, f)
			h.mu.Unlock()
			h.noteSig <- struct{}{}
		default:
			h.deliver(f)
		}
	}
}

func (h *testHost) answerReverse(f frame) {
	if h.onReverse == nil {
		h.sendf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, f.ID)
		return
	}
	res, werr := h.onReverse(f)
	if res == nil && werr == nil {
		return // never answer
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": f.ID}
	if werr != nil {
		msg["error"] = werr
	} else {
		msg["result"] = res
	}
	b, _ := json.Marshal(msg)
	h.send(string(b))
}

func (h *testHost) deliver(f frame) {
	key := string(f.ID)
	h.mu.Lock()
	defer h.mu.Unlock()
	if ch, ok := h.waiters[key]; ok {
		ch <- f
		delete(h.waiters, key)
		return
	}
	h.replies[key] = f
}

func (h *testHost) send(line string) {
	if _, err := io.WriteString(h.stdin, line+"\n"); err != nil {
		h.t.Errorf("writing to the sidecar: %v", err)
	}
}

func (h *testHost) sendf(format string, args ...any) { h.send(fmt.Sprintf(format, args...)) }

// await returns the reply with the given raw JSON id.
func (h *testHost) await(id string) frame {
	h.t.Helper()
	h.mu.Lock()
	if f, ok := h.replies[id]; ok {
		delete(h.replies, id)
		h.mu.Unlock()
		return f
	}
	ch := make(chan frame, 1)
	h.waiters[id] = ch
	h.mu.Unlock()
	select {
	case f := <-ch:
		return f
	case <-time.After(10 * time.Second):
		h.t.Fatalf("no reply to id %s", id)
		return frame{}
	}
}

// call sends a request with a numeric id and returns its reply.
func (h *testHost) call(id int, method string, params string) frame {
	h.t.Helper()
	if params == "" {
		h.sendf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)
	} else {
		h.sendf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	}
	return h.await(fmt.Sprint(id))
}

// waitNote waits for a notification of the given method and returns it.
func (h *testHost) waitNote(method string) frame {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		h.mu.Lock()
		for _, n := range h.notes {
			if n.Method == method {
				h.mu.Unlock()
				return n
			}
		}
		h.mu.Unlock()
		select {
		case <-h.noteSig:
		case <-deadline:
			h.t.Fatalf("no %s notification", method)
		}
	}
}

func (f frame) result(t *testing.T, v any) {
	t.Helper()
	if f.Error != nil {
		t.Fatalf("got error %+v, want a result", f.Error)
	}
	if err := json.Unmarshal(f.Result, v); err != nil {
		t.Fatalf("result %s: %v", f.Result, err)
	}
}

func (f frame) wantError(t *testing.T, code protocol.Code, substr string) {
	t.Helper()
	if f.Error == nil {
		t.Fatalf("got result %s, want error %d", f.Result, code)
	}
	if f.Error.Code != code || !strings.Contains(f.Error.Message, substr) {
		t.Fatalf("error = %+v, want code %d containing %q", f.Error, code, substr)
	}
	if f.Error.Data["kind"] != code.Kind() {
		t.Errorf("error data.kind = %v, want %s", f.Error.Data["kind"], code.Kind())
	}
}

// Test tools.

type sleepArgs struct {
	Ms int `json:"ms"`
}

// sleepTool blocks for ms or until cancelled, and reports which.
func sleepTool(started chan<- string) tools.Tool {
	return tools.New(protocol.ToolDescriptor{Name: "sleep", Parameters: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}}}`)},
		func(ctx context.Context, call tools.Call, a sleepArgs) protocol.ToolResult {
			if started != nil {
				started <- call.ID
			}
			select {
			case <-time.After(time.Duration(a.Ms) * time.Millisecond):
				return tools.OK("slept", nil)
			case <-ctx.Done():
				return tools.Followup("cancelled")
			}
		})
}

type askArgs struct {
	Method string `json:"method"`
}

// reverseTool makes a reverse call and reports its outcome.
func reverseTool(host tools.Host) tools.Tool {
	peer := host.(*Peer)
	return tools.New(protocol.ToolDescriptor{Name: "reverse", Parameters: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, call tools.Call, a askArgs) protocol.ToolResult {
			var out map[string]any
			if err := peer.Call(ctx, a.Method, map[string]string{"callId": call.ID}, &out); err != nil {
				return tools.Followup("reverse call failed: %v", err)
			}
			return tools.OK("answered", out)
		})
}
