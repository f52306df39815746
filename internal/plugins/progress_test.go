package plugins

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/protocol"
)

// notes records the notifications sent to the host.
type notes struct {
	mu   sync.Mutex
	sent []protocol.ToolProgressParams
}

func (n *notes) Notify(_ context.Context, _ string, params any) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, params.(protocol.ToolProgressParams))
	return nil
}

// A result that overtakes progress the connection read before it (the SDK
// handles notifications on a goroutine of their own) still comes after
// that progress: done waits until what was read has been handled.
func TestProgressReadBeforeTheResultPrecedesIt(t *testing.T) {
	drainBound = time.Minute // only a failure waits that long
	t.Cleanup(func() { drainBound = 2 * time.Second })
	host := &notes{}
	p := newProgressCalls(host)
	token, done := p.start("call_1")
	p.arrived(token) // the connection read a progress notification…
	finished := make(chan struct{})
	go func() { done(); close(finished) }() // …then the result, handled first
	select {
	case <-finished:
		t.Fatal("the call ended before the progress read before its result was handled")
	case <-time.After(20 * time.Millisecond):
	}
	p.handle(context.Background(), &mcp.ProgressNotificationClientRequest{
		Params: &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 2, Total: 2, Message: "step 2"}})
	<-finished
	host.mu.Lock()
	defer host.mu.Unlock()
	if len(host.sent) != 1 || host.sent[0].Chunk != "[progress 2/2] step 2\n" || host.sent[0].CallID != "call_1" {
		t.Fatalf("host got %+v, want the step 2 progress of call_1", host.sent)
	}
}

// Progress for a call that has ended, or an unknown token, is dropped and
// never waited for.
func TestProgressAfterTheCallIsDropped(t *testing.T) {
	host := &notes{}
	p := newProgressCalls(host)
	token, done := p.start("call_1")
	done()
	p.arrived(token)
	p.arrived("steerable-unknown")
	p.handle(context.Background(), &mcp.ProgressNotificationClientRequest{
		Params: &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1}})
	if len(host.sent) != 0 {
		t.Fatalf("host got %+v after the call ended", host.sent)
	}
}
