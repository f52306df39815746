package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/wire"
)

// raw is a session driven with hand-written frames over the stdio transport
// (StreamTransport), as a buggy or hostile client would.
type raw struct {
	t     *testing.T
	in    *io.PipeWriter
	done  chan struct{} // closed when Serve returns
	mu    sync.Mutex
	cond  *sync.Cond
	lines []map[string]json.RawMessage
	bad   []string
}

func newRaw(t *testing.T, s setup, grace time.Duration) (*raw, *harness) {
	h := newServer(t, s)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &raw{t: t, in: inW, done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	go func() {
		defer close(r.done)
		if err := h.srv.Serve(context.Background(), &StreamTransport{In: inR, Out: outW, MaxFrame: 4096, Grace: grace, Log: testLog(t)}); err != nil {
			t.Errorf("Serve: %v", err)
		}
		outW.Close()
	}()
	go r.read(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("the session did not end after EOF")
		}
	})
	return r, h
}

func (r *raw) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var f map[string]json.RawMessage
		r.mu.Lock()
		if json.Unmarshal(sc.Bytes(), &f) != nil || string(f["jsonrpc"]) != `"2.0"` {
			r.bad = append(r.bad, sc.Text())
		} else {
			r.lines = append(r.lines, f)
		}
		r.cond.Broadcast()
		r.mu.Unlock()
	}
	r.mu.Lock()
	r.cond.Broadcast()
	r.mu.Unlock()
}

func (r *raw) send(lines ...string) {
	for _, l := range lines {
		if _, err := io.WriteString(r.in, l+"\n"); err != nil {
			r.t.Fatalf("write: %v", err)
		}
	}
}

// reply waits for the frame with id (raw JSON: `1`, `"a"`, `null`).
func (r *raw) reply(id string) map[string]json.RawMessage {
	r.t.Helper()
	f := r.await(10*time.Second, func(f map[string]json.RawMessage) bool {
		return f["method"] == nil && string(f["id"]) == id
	})
	if f == nil {
		r.t.Fatalf("no reply with id %s within 10s", id)
	}
	return f
}

func (r *raw) await(wait time.Duration, match func(map[string]json.RawMessage) bool) map[string]json.RawMessage {
	deadline := time.Now().Add(wait)
	timer := time.AfterFunc(wait, func() { r.mu.Lock(); r.cond.Broadcast(); r.mu.Unlock() })
	defer timer.Stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		for i, f := range r.lines {
			if match(f) {
				r.lines = append(r.lines[:i:i], r.lines[i+1:]...)
				return f
			}
		}
		if time.Now().After(deadline) {
			return nil
		}
		r.cond.Wait()
	}
}

func errCode(t *testing.T, f map[string]json.RawMessage) int {
	t.Helper()
	var e struct{ Code int }
	if f["error"] == nil || json.Unmarshal(f["error"], &e) != nil {
		t.Fatalf("frame %v is not an error reply", f)
	}
	return e.Code
}

const initFrame = `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// initialize runs the handshake. The ping after it returns once the SDK
// has handled notifications/initialized (it handles notifications in
// order), so every later tools/call takes the direct path (direct.go).
func (r *raw) initialize() {
	r.handshake()
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":"init-ping","method":"ping"}`)
	r.reply(`"init-ping"`)
}

// handshake sends initialize and waits for its reply, without
// notifications/initialized.
func (r *raw) handshake() {
	r.send(fmt.Sprintf(initFrame, `"init"`))
	if f := r.reply(`"init"`); f["error"] != nil {
		r.t.Fatalf("initialize failed: %s", f["error"])
	}
}

func TestBadFramesAreAnsweredAndTheSessionLivesOn(t *testing.T) {
	r, _ := newRaw(t, setup{}, time.Second)
	r.initialize()
	for _, tc := range []struct {
		frame, id string
		code      int
	}{
		{`not json`, `null`, -32700},
		{`{"jsonrpc":"2.0","id":1,`, `null`, -32700},
		{`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, `null`, -32600},
		{`[]`, `null`, -32600},
		{`"a string"`, `null`, -32600},
		{`{"id":3,"method":"ping"}`, `3`, -32600},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, `4`, -32600},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, `null`, -32600},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `null`, -32600},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `null`, -32600},
		{`{"jsonrpc":"2.0","id":5,"method":7}`, `5`, -32600},
		{`{"jsonrpc":"2.0","id":6}`, `6`, -32600},
		{`{"jsonrpc":"2.0","id":7,"method":"no/such/method"}`, `7`, -32601},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"scalar"}`, `8`, -32600},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call"}`, `9`, -32600},
		{fmt.Sprintf(initFrame, "10"), `10`, -32600},
		{`{"jsonrpc":"2.0","id":11,"method":"ping","params":{}}` + strings.Repeat(" ", 5000), `11`, -32600},
		{`{"jsonrpc":"2.0","method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"},"id":"big"}`, `"big"`, -32600},
		{`{"jsonrpc":"2.0","method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, `null`, -32600},
		{`{"jsonrpc":"2.0","id":-1,"method":"ping"}`, `null`, -32600},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `9007199254740993`, -32600},
	} {
		r.send(tc.frame)
		if got := errCode(t, r.reply(tc.id)); got != tc.code {
			t.Errorf("%.60s: code %d, want %d", tc.frame, got, tc.code)
		}
	}
	r.send(`{"jsonrpc":"2.0","id":"alive","method":"ping"}`)
	if f := r.reply(`"alive"`); f["error"] != nil {
		t.Errorf("ping after the bad frames: %s", f["error"])
	}
	if len(r.bad) > 0 {
		t.Errorf("stdout carried non-JSON-RPC lines: %q", r.bad)
	}
}

func TestCallsBeforeInitializeAreInvalidRequests(t *testing.T) {
	r, _ := newRaw(t, setup{}, time.Second)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	f := r.reply(`1`)
	if errCode(t, f) != -32600 || !strings.Contains(string(f["error"]), "initialization") {
		t.Errorf("tools/list before initialize: %s; want -32600 naming initialization", f["error"])
	}
	r.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"test_fail","arguments":{}}}`)
	if f := r.reply(`"call"`); errCode(t, f) != -32600 || !strings.Contains(string(f["error"]), "initialization") {
		t.Errorf("tools/call before initialize: %s; want -32600 naming initialization", f["error"])
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) // ping is allowed at any time
	if f := r.reply(`2`); f["error"] != nil {
		t.Errorf("ping before initialize: %s", f["error"])
	}
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if f := r.reply(`3`); f["error"] != nil {
		t.Errorf("tools/list after initialize: %s", f["error"])
	}
}

func TestFloodOfBadAndGoodFrames(t *testing.T) {
	r, _ := newRaw(t, setup{}, time.Second)
	r.initialize()
	const n = 2000
	go func() {
		for i := range n {
			r.send(`{bad`, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
		}
	}()
	for i := range n {
		if f := r.reply(fmt.Sprint(i)); f["error"] != nil {
			t.Fatalf("ping %d: %s", i, f["error"])
		}
	}
}

func TestCancelledCallGetsNoReply(t *testing.T) {
	r, h := newRaw(t, setup{}, time.Second)
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"test_block","arguments":{}}}`)
	<-h.blockStarted
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`)
	if err := <-h.blockEnded; err == nil {
		t.Fatal("the tool's context was not cancelled")
	}
	r.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	r.reply(`"after"`)
	if f := r.await(200*time.Millisecond, func(f map[string]json.RawMessage) bool { return string(f["id"]) == `"slow"` }); f != nil {
		t.Errorf("the cancelled call was answered: %v", f)
	}
}

func TestEOFLetsRunningCallsFinish(t *testing.T) {
	r, _ := newRaw(t, setup{}, 5*time.Second)
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_sleep","arguments":{"ms":200}}}`)
	time.Sleep(20 * time.Millisecond)
	r.in.Close()
	f := r.reply(`1`)
	if f["error"] != nil || !strings.Contains(string(f["result"]), "slept") {
		t.Errorf("the call in flight at EOF: %v", f)
	}
}

func TestEOFCancelsCallsAfterTheGrace(t *testing.T) {
	r, h := newRaw(t, setup{}, 50*time.Millisecond)
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_block","arguments":{}}}`)
	<-h.blockStarted
	r.in.Close()
	select {
	case <-h.blockEnded:
	case <-time.After(10 * time.Second):
		t.Fatal("a call still blocked after EOF and the grace period was not cancelled")
	}
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end")
	}
}

// FuzzDecodeFrame: whatever a client sends, a frame becomes the SDK's
// message or an error reply, never both; the reply is a JSON-RPC error
// reply, and the SDK's message carries the frame's id exactly.
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`, `{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}`,
		`[1]`, `nul`, `{"jsonrpc":"2.0","id":-9007199254740993,"method":"x"}`, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"x\"}",
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"x"}`, `{"jsonrpc":"2.0","id":"\u0061","method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, fe := decodeFrame(line)
		if msg != nil && fe != nil {
			t.Fatalf("decodeFrame(%q) = %v, %v: want at most one", line, msg, fe)
		}
		if fe != nil {
			var out struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct{ Code int }
			}
			b := fe.Reply()
			if err := json.Unmarshal(b, &out); err != nil || out.JSONRPC != "2.0" || out.ID == nil || out.Error.Code == 0 {
				t.Fatalf("error frame %s for %q is not a JSON-RPC error reply", b, line)
			}
		}
		var id jsonrpc.ID
		switch m := msg.(type) {
		case *jsonrpc.Request:
			id = m.ID
		case *jsonrpc.Response:
			id = m.ID
		default:
			return
		}
		if !id.IsValid() {
			return
		}
		var env struct{ ID json.RawMessage }
		if err := json.Unmarshal(line, &env); err != nil {
			t.Fatalf("decodeFrame took %q, which is not JSON", line)
		}
		if got, want := wire.NewID(rawID(id)).Key, wire.NewID(bytes.TrimSpace(env.ID)).Key; got != want {
			t.Fatalf("id %s reaches the SDK as %s", env.ID, rawID(id))
		}
	})
}

// An oversized tools/call from the Go SDK's own client is answered with its
// id: the client's call ends with the -32600 naming the limit, long before
// its context would, and the session serves on.
func TestOversizedCallEndsTheSDKClientsCall(t *testing.T) {
	h := newServer(t, setup{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = h.srv.Serve(context.Background(), &StreamTransport{In: inR, Out: outW, MaxFrame: 4096, Grace: time.Second, Log: testLog(t)})
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); <-served }()
	start := time.Now()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file",
		Arguments: map[string]any{"path": "big.txt", "content": strings.Repeat("x", 10_000)}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != -32600 || !strings.Contains(werr.Message, "STEERABLE_MAX_FRAME_BYTES") {
		t.Fatalf("oversized call: %v; want the -32600 reply naming the limit", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the reply took %v", d)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "big.txt")); err == nil {
		t.Error("the oversized call ran")
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file",
		Arguments: map[string]any{"path": "small.txt", "content": "ok"}}); err != nil {
		t.Errorf("a call after the oversized one: %v", err)
	}
}
