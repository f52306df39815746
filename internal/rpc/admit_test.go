package rpc

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// fillSlots starts n sleeping calls (ids 1..n) and waits until they run.
func fillSlots(t *testing.T, h *testHost, started chan string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		h.sendf(`{"jsonrpc":"2.0","id":%d,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":600000}}}`, i)
	}
	for range n {
		<-started
	}
}

func cancelSlots(h *testHost, n int) {
	for i := 1; i <= n; i++ {
		h.sendf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%d}}`, i)
		h.await(fmt.Sprint(i))
	}
}

// TestFullQueuePausesReadingThenAnswersBusy: behind the in-flight cap a
// bounded queue waits; beyond it the sidecar stops reading, and when no room
// frees it answers -32003 until room frees.
func TestFullQueuePausesReadingThenAnswersBusy(t *testing.T) {
	started := make(chan string, 10)
	h := startHost(t, hostOpts{
		opts:   Options{MaxInflight: 2},
		tools:  func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(started)} },
		limits: func(l *limits) { l.queue, l.shedAfter = 2, 300*time.Millisecond },
	})
	fillSlots(t, h, started, 2)
	h.send(`{"jsonrpc":"2.0","id":3,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":1}}}`)
	// The reader starts waiting for room once it has read 4 (the queue is
	// then full), which may be before this goroutine runs again after the
	// write: the clock starts before it.
	t0 := time.Now()
	h.send(`{"jsonrpc":"2.0","id":4,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":1}}}`)
	h.send(`{"jsonrpc":"2.0","id":5,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":1}}}`)
	h.await("5").wantError(t, protocol.CodeBusy, "busy: 2 calls are running and 2 waiting")
	if d := time.Since(t0); d < 300*time.Millisecond {
		t.Errorf("busy after %v: the reader did not wait for room first", d)
	}
	// Replies to reverse calls and cancellations are still read: cancelling
	// a running call lets the queue move, and requests fit again.
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	h.await("1").wantError(t, protocol.CodeCancelled, "")
	var res protocol.ToolResult
	h.await("3").result(t, &res)
	h.await("4").result(t, &res)
	h.call(6, protocol.MethodToolInvoke, `{"name":"sleep","arguments":{"ms":1}}`).result(t, &res)
	if !res.Success {
		t.Errorf("call after room freed = %+v", res)
	}
	var health protocol.Health
	h.call(7, protocol.MethodPing, "").result(t, &health)
	h.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`)
	h.await("2").wantError(t, protocol.CodeCancelled, "")
}

// TestFullQueueNeverDeadlocksOnReverseCalls: every slot waits for a reverse
// call whose reply sits behind requests the full queue cannot take. The
// reader must read on (answering busy), or nothing would ever finish.
func TestFullQueueNeverDeadlocksOnReverseCalls(t *testing.T) {
	release := make(chan struct{})
	var asked atomic.Int32
	h := startHost(t, hostOpts{
		opts:  Options{MaxInflight: 1},
		tools: func(host tools.Host) []tools.Tool { return []tools.Tool{reverseTool(host)} },
		onReverse: func(f frame) (any, *protocol.WireError) {
			if asked.Add(1) == 1 {
				<-release // answer the first call only after the queue overflowed
			}
			return map[string]any{"ok": true}, nil
		},
		limits: func(l *limits) { l.queue, l.shedAfter = 1, 100*time.Millisecond },
	})
	for i := 1; i <= 4; i++ {
		h.sendf(`{"jsonrpc":"2.0","id":%d,"method":"tool.invoke","params":{"name":"reverse","arguments":{"method":"ask"}}}`, i)
	}
	close(release) // the reply to srv_1 now follows requests 3 and 4 on the pipe
	var res protocol.ToolResult
	for _, id := range []string{"1", "2"} {
		h.await(id).result(t, &res)
		if !res.Success {
			t.Errorf("call %s = %+v", id, res)
		}
	}
	busy := 0
	for _, id := range []string{"3", "4"} {
		if f := h.await(id); f.Error != nil {
			f.wantError(t, protocol.CodeBusy, "busy")
			busy++
		}
	}
	if busy == 0 {
		t.Error("no request was answered busy: the queue bound did not hold")
	}
}

// TestFloodStaysBounded: with every slot taken, a host that pipelines
// thousands of small requests (or 1 MiB ones) costs the sidecar bounded
// memory: the queue holds a few, the pipe holds the rest until they are
// answered busy, never a goroutine, a context and a frame per request.
// (make bench measures the real binary's RSS under a flood.)
func TestFloodStaysBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		pad  int
	}{{"tiny", 30_000, 0}, {"1MiB", 30, 1 << 20}} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan string, 10)
			h := startHost(t, hostOpts{
				opts:   Options{MaxInflight: 4, MaxFrameBytes: 2 << 20},
				tools:  func(tools.Host) []tools.Tool { return []tools.Tool{sleepTool(started)} },
				limits: func(l *limits) { l.shedAfter = 50 * time.Millisecond },
			})
			fillSlots(t, h, started, 4)
			peak := watchHeap(t)
			pad := strings.Repeat("x", tc.pad)
			var wg sync.WaitGroup
			for i := 0; i < tc.n; i++ {
				id := fmt.Sprintf("f%d", i)
				ch := make(chan frame, 1)
				h.mu.Lock()
				h.waiters[`"`+id+`"`] = ch
				h.mu.Unlock()
				wg.Add(1)
				go func() { defer wg.Done(); <-ch }()
				h.sendf(`{"jsonrpc":"2.0","id":%q,"method":"tool.invoke","params":{"name":"sleep","arguments":{"ms":0,"pad":%q}}}`, id, pad)
			}
			cancelSlots(h, 4) // the queued requests run, the rest were answered busy
			wg.Wait()
			if p := peak(); p > 64<<20 {
				t.Errorf("heap and stacks peaked at %d MiB during the flood, want < 64", p>>20)
			}
		})
	}
}

// watchHeap samples the heap and goroutine stacks in use until the returned
// function is called, which reports the peak.
func watchHeap(t *testing.T) func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if used := ms.HeapInuse + ms.StackInuse; used > peak.Load() {
				peak.Store(used)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(stop); <-done; return peak.Load() }
}
