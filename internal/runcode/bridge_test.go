package runcode

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

// fakeChild plays the child's side of a bridge over in-memory pipes.
type fakeChild struct {
	t       *testing.T
	toB     *io.PipeWriter // the child's fd 3
	replies chan map[string]any
	b       *bridge
	served  chan struct{}
	stopped atomic.Bool
	cancel  context.CancelFunc
}

func newFakeChild(t *testing.T, lim Limits, d Dispatch) *fakeChild {
	t.Helper()
	fromChild, toB := io.Pipe()
	fromB, toChild := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &fakeChild{t: t, toB: toB, replies: make(chan map[string]any, 256), served: make(chan struct{}), cancel: cancel}
	c.b = newBridge(ctx, fromChild, toChild, d, lim.withDefaults(), func() { c.stopped.Store(true) })
	go func() {
		sc := bufio.NewScanner(fromB)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("reply is not JSON: %q", sc.Text())
			}
			c.replies <- m
		}
		close(c.replies)
	}()
	go func() { c.b.serve(); close(c.served) }()
	t.Cleanup(func() {
		cancel()
		toB.Close()
		<-c.served
		toChild.Close()
		fromChild.Close()
	})
	return c
}

func (c *fakeChild) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.toB, line+"\n"); err != nil {
		c.t.Fatalf("writing %q: %v", line, err)
	}
}

func (c *fakeChild) call(id int, tool string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"v":1,"type":"call","id":%d,"tool":%q,"arguments":{"n":%d}}`, id, tool, id))
}

func (c *fakeChild) reply() map[string]any {
	c.t.Helper()
	select {
	case m := <-c.replies:
		return m
	case <-time.After(10 * time.Second):
		c.t.Fatal("no reply within 10s")
		return nil
	}
}

// end closes the child's fd 3 and waits for the bridge.
func (c *fakeChild) end() (*Done, []CallRecord, error) {
	c.toB.Close()
	select {
	case <-c.served:
	case <-time.After(10 * time.Second):
		c.t.Fatal("the bridge did not finish within 10s")
	}
	return c.b.result()
}

func okResult(context.Context, int, string, json.RawMessage) protocol.ToolResult {
	return protocol.ToolResult{Success: true}
}

// Replies go out as calls finish, not in the order they came in, and ids
// need not arrive in order.
func TestBridgeRepliesOutOfOrder(t *testing.T) {
	release := make(chan struct{})
	c := newFakeChild(t, Limits{}, func(ctx context.Context, _ int, tool string, _ json.RawMessage) protocol.ToolResult {
		if tool == "slow" {
			<-release
		}
		return protocol.ToolResult{Success: true, Message: tool}
	})
	c.call(5, "slow")
	c.call(3, "fast")
	if r := c.reply(); r["id"] != 3.0 || r["result"].(map[string]any)["message"] != "fast" {
		t.Fatalf("first reply %v, want id 3", r)
	}
	close(release)
	if r := c.reply(); r["id"] != 5.0 || r["ok"] != true {
		t.Fatalf("second reply %v, want id 5", r)
	}
	_, calls, err := c.end()
	if err != nil {
		t.Fatal(err)
	}
	want := []CallRecord{{Name: "slow", Success: true}, {Name: "fast", Success: true}}
	if diff := cmp.Diff(want, calls, cmpIgnoreDuration); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

var cmpIgnoreDuration = cmp.Transformer("noDuration", func(c CallRecord) CallRecord { c.DurationMs = 0; return c })

func TestBridgeStopsOnAProtocolViolation(t *testing.T) {
	tests := []struct {
		name   string
		frames []string
		reason string
	}{
		{"garbage", []string{"hello from print()"}, "frame 1: malformed bridge frame: invalid character"},
		{"garbage after a call", []string{`{"v":1,"type":"call","id":1,"tool":"t"}`, "\x00\x01"}, "frame 2"},
		{"an id used twice", []string{`{"v":1,"type":"call","id":1,"tool":"t"}`, `{"v":1,"type":"call","id":1,"tool":"t"}`}, "call id 1 was used twice"},
		{"an unknown type", []string{`{"v":1,"type":"log"}`}, `unknown type "log"`},
		{"a frame too large", []string{`{"v":1,"type":"call","id":1,"tool":"t","arguments":{"a":"` + strings.Repeat("x", 2<<20) + `"}}`}, "bridge frame too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeChild(t, Limits{MaxFrameBytes: 1 << 20, MaxResultBytes: 1024}, okResult)
			go func() {
				for _, f := range tt.frames {
					if _, err := io.WriteString(c.toB, f+"\n"); err != nil {
						return // the bridge stopped reading
					}
				}
			}()
			<-c.served
			_, _, err := c.b.result()
			if !errors.Is(err, ErrBridge) || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("err = %v, want ErrBridge with %q", err, tt.reason)
			}
			if !c.stopped.Load() {
				t.Error("the child was not stopped")
			}
		})
	}
}

// The call over the limit is refused (the program may still return); one
// more ends the program.
func TestBridgeCallLimit(t *testing.T) {
	c := newFakeChild(t, Limits{MaxCalls: 2}, okResult)
	for id := 1; id <= 2; id++ {
		c.call(id, "t")
		if r := c.reply(); r["ok"] != true {
			t.Fatalf("call %d: %v", id, r)
		}
	}
	c.call(3, "t")
	r := c.reply()
	if r["ok"] != false || !strings.Contains(r["error"].(string), "at most 2 nested tool calls per program (STEERABLE_RUN_CODE_MAX_CALLS)") {
		t.Fatalf("call 3: %v, want the refusal naming the variable", r)
	}
	if c.stopped.Load() {
		t.Fatal("stopped at the first refusal")
	}
	c.call(4, "t")
	<-c.served
	_, calls, err := c.b.result()
	if !errors.Is(err, ErrCallLimit) || !c.stopped.Load() {
		t.Errorf("after a second call over the limit: err %v, stopped %v", err, c.stopped.Load())
	}
	if len(calls) != 2 {
		t.Errorf("recorded %d calls, want 2", len(calls))
	}
}

func TestBridgeRefusesNestedRunCode(t *testing.T) {
	var dispatched atomic.Int32
	c := newFakeChild(t, Limits{}, func(context.Context, int, string, json.RawMessage) protocol.ToolResult {
		dispatched.Add(1)
		return protocol.ToolResult{Success: true}
	})
	c.call(1, "run_code")
	res := c.reply()["result"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"success": false, "terminal": true, "error": "nested run_code is not allowed"}, res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, calls, _ := c.end()
	if dispatched.Load() != 0 || len(calls) != 1 || calls[0].Success {
		t.Errorf("dispatched %d, calls %+v", dispatched.Load(), calls)
	}
}

// A program's threads may call at once, but at most MaxInflightCalls run
// at a time: the bridge stops reading until one finishes.
func TestBridgeBoundsCallsInFlight(t *testing.T) {
	var now, peak atomic.Int32
	release := make(chan struct{})
	c := newFakeChild(t, Limits{MaxCalls: 20}, func(context.Context, int, string, json.RawMessage) protocol.ToolResult {
		n := now.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
		now.Add(-1)
		return protocol.ToolResult{Success: true}
	})
	go func() {
		for id := 1; id <= 20; id++ {
			io.WriteString(c.toB, fmt.Sprintf(`{"v":1,"type":"call","id":%d,"tool":"t"}`+"\n", id))
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for now.Load() < MaxInflightCalls && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // a ninth would start now if it could
	close(release)
	for range 20 {
		c.reply()
	}
	if peak.Load() != MaxInflightCalls {
		t.Errorf("peak in flight %d, want %d", peak.Load(), MaxInflightCalls)
	}
}

// What follows the done is never read (the runner exits at once; a forged
// done ends the conversation).
func TestBridgeStopsReadingAtDone(t *testing.T) {
	c := newFakeChild(t, Limits{}, okResult)
	c.send(`{"v":1,"type":"done","ok":true,"value":[1,2]}`)
	<-c.served
	go io.WriteString(c.toB, "garbage\n")
	done, _, err := c.b.result()
	if err != nil || done == nil || string(done.Value) != "[1,2]" {
		t.Errorf("done %+v, err %v", done, err)
	}
}

// When the run ends, calls still waiting for a slot are answered without
// running.
func TestBridgeCallsAfterTheRunEnded(t *testing.T) {
	var mu sync.Mutex
	ran := 0
	c := newFakeChild(t, Limits{MaxCalls: 20}, func(ctx context.Context, _ int, _ string, _ json.RawMessage) protocol.ToolResult {
		mu.Lock()
		ran++
		mu.Unlock()
		<-ctx.Done()
		return protocol.ToolResult{Success: false, Error: "cancelled"}
	})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for id := 1; id <= MaxInflightCalls+2; id++ {
			io.WriteString(c.toB, fmt.Sprintf(`{"v":1,"type":"call","id":%d,"tool":"t"}`+"\n", id))
		}
	}()
	time.Sleep(100 * time.Millisecond)
	c.cancel()
	<-wrote
	_, calls, _ := c.end()
	if len(calls) != MaxInflightCalls+2 {
		t.Errorf("%d calls recorded, want %d", len(calls), MaxInflightCalls+2)
	}
	if ran > MaxInflightCalls {
		t.Errorf("%d calls ran, at most %d may", ran, MaxInflightCalls)
	}
	for _, cr := range calls {
		if cr.Success {
			t.Errorf("call %+v succeeded after the run ended", cr)
		}
	}
}

// FuzzBridge feeds arbitrary bytes as the child's fd 3: the bridge never
// panics, always finishes, and either ends cleanly, stops the child, or
// records a done.
func FuzzBridge(f *testing.F) {
	f.Add([]byte(`{"v":1,"type":"call","id":1,"tool":"t"}` + "\n" + `{"v":1,"type":"done","ok":true,"value":1}` + "\n"))
	f.Add([]byte(`{"v":1,"type":"call","id":1,"tool":"run_code"}` + "\n" + `{"v":1,"type":"call","id":1,"tool":"t"}` + "\n"))
	f.Add([]byte("\n\n{}\n"))
	f.Add([]byte(`{"v":1,"type":"call","id":2,"tool":"t","arguments":{}}` + "\n" + `{"v":1,"type":"call","id":3,"tool":"t"}` + "\n" + `{"v":1,"type":"call","id":4,"tool":"t"}`))
	f.Fuzz(func(t *testing.T, stream []byte) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var stopped atomic.Bool
		b := newBridge(ctx, strings.NewReader(string(stream)), io.Discard, okResult, Limits{MaxCalls: 2, MaxFrameBytes: 4096, MaxResultBytes: 1024}.withDefaults(),
			func() { stopped.Store(true) })
		b.serve()
		done, calls, err := b.result()
		if err != nil && !stopped.Load() {
			t.Fatalf("error %v without stopping the child", err)
		}
		if len(calls) > 2 {
			t.Fatalf("%d calls over a limit of 2", len(calls))
		}
		if done != nil && err != nil {
			t.Fatalf("both a done and an error: %v", err)
		}
	})
}

// The attack: a program writes its own done frame to fd 3, bypassing the
// runner's size check. The sidecar bounds the value itself: over
// MaxResultBytes, the done becomes the failure the runner would have sent.
func TestBridgeBoundsTheResultOfAForgedDone(t *testing.T) {
	lim := Limits{MaxResultBytes: 1024}
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{`"` + strings.Repeat("x", 1022) + `"`, true},
		{`"` + strings.Repeat("x", 1023) + `"`, false},
		{`"` + strings.Repeat("x", 5<<20) + `"`, false},
	} {
		c := newFakeChild(t, lim, okResult)
		c.send(`{"v":1,"type":"done","ok":true,"value":` + tc.value + `}`)
		<-c.served
		done, _, err := c.b.result()
		switch {
		case err != nil || done == nil:
			t.Fatalf("%d bytes: done %v, err %v", len(tc.value), done, err)
		case done.OK != tc.ok:
			t.Errorf("%d bytes: ok %v, want %v", len(tc.value), done.OK, tc.ok)
		case !tc.ok && (done.Kind != KindResult || done.Value != nil ||
			!strings.Contains(done.Error, fmt.Sprintf("is %d bytes of JSON, over the limit of 1024 (STEERABLE_RUN_CODE_MAX_RESULT_BYTES)", len(tc.value)))):
			t.Errorf("%d bytes: %+v", len(tc.value), done)
		}
	}
}
