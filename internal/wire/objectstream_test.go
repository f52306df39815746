package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// streamPeer is a jsonrpc2.Conn over an ObjectStream whose other end the
// test holds: it writes the peer's frames to in and reads ours from out.
type streamPeer struct {
	in    *io.PipeWriter
	out   chan string
	reqs  chan *jsonrpc2.Request
	lasts chan lastRead           // Last, asked in the handler
	recv  chan *jsonrpc2.Response // responses OnRecv saw without a call
	conn  *jsonrpc2.Conn
	st    *ObjectStream
	ended chan error
}

func newStreamPeer(t *testing.T, limit int) *streamPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &streamPeer{in: inW, out: make(chan string, 16), reqs: make(chan *jsonrpc2.Request, 16), lasts: make(chan lastRead, 16),
		recv: make(chan *jsonrpc2.Response, 16), ended: make(chan error, 1)}
	p.st = NewObjectStream(inR, outW, StreamOptions{Framing: FramingNewline, MaxFrameBytes: limit,
		LimitName: "TEST_LIMIT", MaxQueueBytes: 1 << 20, OnEnd: func(err error) { p.ended <- err }})
	p.conn = jsonrpc2.NewConn(context.Background(), p.st, handlerFunc(func(r *jsonrpc2.Request) {
		msg, size, ok := p.st.Last(r)
		p.lasts <- lastRead{msg, size, ok}
		p.reqs <- r
	}),
		jsonrpc2.OnRecv(func(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
			if resp != nil && req == nil {
				p.recv <- resp
			}
		}))
	p.st.Start()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			p.out <- sc.Text()
		}
	}()
	t.Cleanup(func() { p.conn.Close(); inW.Close(); outR.Close() })
	return p
}

type lastRead struct {
	msg  Message
	size int
	ok   bool
}

type handlerFunc func(*jsonrpc2.Request)

func (f handlerFunc) Handle(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) { f(r) }

func (p *streamPeer) send(t *testing.T, frame string) {
	t.Helper()
	if _, err := io.WriteString(p.in, frame+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (p *streamPeer) line(t *testing.T) string {
	t.Helper()
	select {
	case l := <-p.out:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no frame written")
		return ""
	}
}

func (p *streamPeer) request(t *testing.T) *jsonrpc2.Request {
	t.Helper()
	select {
	case r := <-p.reqs:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no request handled")
		return nil
	}
}

// TestObjectStreamRequestsAndReplies: a request crosses the Conn once
// decoded, with its params as sent; the reply echoes its id as the peer
// spelled it, and Last gives the handler the frame's Message.
func TestObjectStreamRequestsAndReplies(t *testing.T) {
	tests := []struct {
		name, frame, wantID string
		notif               bool
	}{
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":[1, 2]}}`, `"a"`, false},
		{"escaped string id", `{"jsonrpc":"2.0","id":"\u0061","method":"m","params":{"x":[1, 2]}}`, `"\u0061"`, false},
		{"integer id", `{"id":7,"jsonrpc":"2.0","method":"m","params":{"x":[1, 2]}}`, `7`, false},
		{"notification", `{"jsonrpc":"2.0","method":"m","params":{"x":[1, 2]}}`, ``, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newStreamPeer(t, 1<<10)
			p.send(t, tt.frame)
			r := p.request(t)
			if r.Method != "m" || r.Notif != tt.notif || r.Params == nil || string(*r.Params) != `{"x":[1, 2]}` {
				t.Fatalf("request = %+v, params %s", r, *r.Params)
			}
			if l := <-p.lasts; !l.ok || l.size < len(tt.frame) || string(l.msg.Params) != `{"x":[1, 2]}` {
				t.Errorf("Last = %+v", l)
			}
			if tt.notif {
				return
			}
			raw := json.RawMessage(`{"ok":true}`)
			if err := p.conn.SendResponse(context.Background(), &jsonrpc2.Response{ID: r.ID, Result: &raw}); err != nil {
				t.Fatal(err)
			}
			if got, want := p.line(t), `{"jsonrpc":"2.0","id":`+tt.wantID+`,"result":{"ok":true}}`; got != want {
				t.Errorf("reply = %s, want %s", got, want)
			}
		})
	}
}

// TestObjectStreamAnswersWhatItCannotServe: an oversized request is
// answered with its own id, a batch and a non-JSON line with id null, and
// none reaches the Conn; the next request does.
func TestObjectStreamAnswersWhatItCannotServe(t *testing.T) {
	p := newStreamPeer(t, 256)
	p.send(t, `{"jsonrpc":"2.0","id":"big","method":"m","params":{"s":"`+strings.Repeat("x", 400)+`"}}`)
	p.send(t, `[{"jsonrpc":"2.0","id":1,"method":"m"}]`)
	p.send(t, `not json`)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"next"}`)
	if r := p.request(t); r.Method != "next" {
		t.Fatalf("first request handled = %s", r.Method)
	}
	want := []string{`"id":"big","error":{"code":-32600,"message":"frame of 460 bytes exceeds the 256-byte frame limit (TEST_LIMIT)`, `"id":null,"error":{"code":-32600,"message":"batch`, `"id":null,"error":{"code":-32700`}
	for _, w := range want {
		if got := p.line(t); !strings.Contains(got, w) {
			t.Errorf("answer = %s, want it to contain %s", got, w)
		}
	}
}

// TestObjectStreamReverseCalls: a call's malformed reply ends it with the
// stream's error; a call whose ctx ended is forgotten, so its late reply is
// seen without a request; the end of the input ends a pending call, yet
// replies can still be sent.
func TestObjectStreamReverseCalls(t *testing.T) {
	p := newStreamPeer(t, 1<<10)
	id := jsonrpc2.ID{Str: "srv_1", IsString: true}
	w, err := p.conn.DispatchCall(context.Background(), "ask", json.RawMessage(`{}`), jsonrpc2.PickID(id))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.line(t); got != `{"jsonrpc":"2.0","id":"srv_1","method":"ask","params":{}}` {
		t.Errorf("request frame = %s", got)
	}
	p.send(t, `{"jsonrpc":"2.0","id":"srv_1","error":"no"}`)
	if err := w.Wait(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "the host sent a malformed reply") {
		t.Errorf("malformed reply ended the call with %v", err)
	}
	p.line(t) // the malformed reply's own answer

	ctx, cancel := context.WithCancel(context.Background())
	w, err = p.conn.DispatchCall(ctx, "ask", json.RawMessage(`{}`), jsonrpc2.PickID(jsonrpc2.ID{Str: "srv_2", IsString: true}))
	if err != nil {
		t.Fatal(err)
	}
	p.line(t)
	cancel()
	if err := w.Wait(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v", err)
	}
	p.send(t, `{"jsonrpc":"2.0","id":"srv_2","result":{}}`)
	select {
	case r := <-p.recv:
		if r.ID.Str != "srv_2" {
			t.Errorf("unmatched reply id = %v", r.ID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the late reply was not seen without a call")
	}

	w, err = p.conn.DispatchCall(context.Background(), "ask", json.RawMessage(`{}`), jsonrpc2.PickID(jsonrpc2.ID{Str: "srv_3", IsString: true}))
	if err != nil {
		t.Fatal(err)
	}
	p.line(t)
	p.send(t, `{"jsonrpc":"2.0","id":9,"method":"last"}`)
	r := p.request(t)
	p.in.Close()
	if err := <-p.ended; !errors.Is(err, io.EOF) {
		t.Errorf("OnEnd = %v", err)
	}
	if err := w.Wait(context.Background(), nil); !errors.Is(err, jsonrpc2.ErrClosed) {
		t.Errorf("pending call after EOF = %v", err)
	}
	raw := json.RawMessage(`1`)
	if err := p.conn.SendResponse(context.Background(), &jsonrpc2.Response{ID: r.ID, Result: &raw}); err != nil {
		t.Fatalf("reply after EOF: %v", err)
	}
	if got := p.line(t); got != `{"jsonrpc":"2.0","id":9,"result":1}` {
		t.Errorf("reply after EOF = %s", got)
	}
}

// TestObjectStreamWriteModes: ModeTry drops a notification the full queue
// cannot take and counts it; ModeWait makes a notification give up on its
// context.
func TestObjectStreamWriteModes(t *testing.T) {
	inR, _ := io.Pipe()
	outR, outW := io.Pipe() // never read: the first write blocks
	defer outR.Close()
	st := NewObjectStream(inR, outW, StreamOptions{Framing: FramingNewline, MaxFrameBytes: 1 << 10, MaxQueueBytes: 64})
	conn := jsonrpc2.NewConn(context.Background(), st, handlerFunc(func(*jsonrpc2.Request) {}))
	defer conn.Close()
	params := json.RawMessage(`{"chunk":"` + strings.Repeat("x", 40) + `"}`)
	try := WithMode(context.Background(), ModeTry)
	for range 4 {
		_ = conn.Notify(try, "progress", params)
	}
	if st.Writer().Stats().Dropped == 0 {
		t.Error("no notification dropped with the queue full")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := conn.Notify(ctx, "note", params); err == nil {
		t.Error("a notification waited past its context")
	}
}
