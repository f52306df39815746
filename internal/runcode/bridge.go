package runcode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"steerable.dev/sidecar/protocol"
)

// Dispatch runs one nested call through the sidecar's dispatch pipeline
// (validation, approval, the tool, host tools over reverse tool.invoke).
// seq numbers the program's calls from 1; ctx ends with the run.
type Dispatch func(ctx context.Context, seq int, tool string, args json.RawMessage) protocol.ToolResult

// CallRecord is one nested call as data.calls reports it.
type CallRecord struct {
	Name       string `json:"name"`
	Success    bool   `json:"success"`
	DurationMs int64  `json:"durationMs"`
}

// ErrBridge marks a run the sidecar stopped because the child broke the
// protocol; ErrCallLimit one it stopped because the program kept calling
// tools after its call was refused.
var (
	ErrBridge    = errors.New("the run_code bridge broke")
	ErrCallLimit = errors.New("the program kept calling tools after reaching the call limit")
)

// nestedRefusal is the result of a nested run_code: a program cannot start
// another interpreter through the bridge.
var nestedRefusal = protocol.ToolResult{Success: false, Terminal: true, Error: "nested run_code is not allowed"}

// bridge serves one program's side of the protocol: it reads the child's
// frames, runs each call (at most MaxInflightCalls at once) and writes the
// replies in whatever order they finish.
type bridge struct {
	in       *frameReader
	out      io.Writer
	dispatch Dispatch
	limits   Limits
	ctx      context.Context // the nested calls'; cancelled when the run ends
	stop     func()          // ends the child early (a protocol violation, the limit)
	sem      chan struct{}
	wg       sync.WaitGroup
	wmu      sync.Mutex

	mu      sync.Mutex
	calls   []CallRecord
	seen    map[int64]bool
	refused int
	done    *Done
	err     error
}

func newBridge(ctx context.Context, in io.Reader, out io.Writer, d Dispatch, lim Limits, stop func()) *bridge {
	return &bridge{in: newFrameReader(in, lim.MaxFrameBytes), out: out, dispatch: d, limits: lim, ctx: ctx, stop: stop,
		sem: make(chan struct{}, MaxInflightCalls), seen: map[int64]bool{}}
}

// serve reads frames until the child's first done, the end of the stream,
// or a violation (which stops the child). It returns once every call it
// started has replied.
func (b *bridge) serve() {
	defer b.wg.Wait()
	for n := 1; ; n++ {
		line, err := b.in.next()
		switch {
		case errors.Is(err, io.EOF):
			return
		case err != nil:
			b.fail(fmt.Errorf("%w: frame %d: %v", ErrBridge, n, err))
			return
		}
		f, err := Decode(line)
		if err != nil {
			b.fail(fmt.Errorf("%w: frame %d: %v", ErrBridge, n, err))
			return
		}
		if d, ok := f.(Done); ok {
			d = b.limits.boundResult(d)
			b.mu.Lock()
			b.done = &d
			b.mu.Unlock()
			// The runner exits right after its done; a program that forged
			// one is stopped soon after.
			t := time.AfterFunc(doneGrace, b.stop)
			context.AfterFunc(b.ctx, func() { t.Stop() })
			return // what follows a done is never read
		}
		if !b.call(f.(Call)) {
			return
		}
	}
}

// call admits one call; false stops the serving.
func (b *bridge) call(c Call) bool {
	b.mu.Lock()
	switch {
	case b.seen[c.ID]:
		b.mu.Unlock()
		b.fail(fmt.Errorf("%w: call id %d was used twice", ErrBridge, c.ID))
		return false
	case len(b.calls) >= b.limits.MaxCalls:
		b.refused++
		b.mu.Unlock()
		if b.refused > 1 {
			b.fail(fmt.Errorf("%w (%d, STEERABLE_RUN_CODE_MAX_CALLS)", ErrCallLimit, b.limits.MaxCalls))
			return false
		}
		b.write(EncodeRefusal(c.ID, b.limits.callLimitMessage()))
		return true
	}
	b.seen[c.ID] = true
	b.calls = append(b.calls, CallRecord{Name: c.Tool})
	seq := len(b.calls)
	b.mu.Unlock()
	if c.Tool == "run_code" {
		b.finish(seq, c.ID, nestedRefusal, 0)
		return true
	}
	if !b.acquire() {
		b.finish(seq, c.ID, protocol.ToolResult{Success: false, Error: "run_code ended before this call could run"}, 0)
		return true
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer func() { <-b.sem }()
		start := time.Now()
		res := b.dispatch(b.ctx, seq, c.Tool, c.Arguments)
		b.finish(seq, c.ID, res, time.Since(start))
	}()
	return true
}

// acquire takes a slot for one call; false once the run has ended, even
// when a slot is free (select picks either ready case).
func (b *bridge) acquire() bool {
	select {
	case b.sem <- struct{}{}:
		if b.ctx.Err() != nil {
			<-b.sem
			return false
		}
		return true
	case <-b.ctx.Done():
		return false
	}
}

// finish records call seq and replies to the child.
func (b *bridge) finish(seq int, id int64, res protocol.ToolResult, took time.Duration) {
	b.mu.Lock()
	b.calls[seq-1].Success, b.calls[seq-1].DurationMs = res.Success, took.Milliseconds()
	b.mu.Unlock()
	b.write(EncodeResult(id, res))
}

// write sends one reply. It fails once the child is gone (the run closes
// the pipe), which is then nobody's concern.
func (b *bridge) write(frame []byte) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	_, _ = b.out.Write(frame)
}

// fail records the first violation and stops the child.
func (b *bridge) fail(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
	b.stop()
}

// result is what the bridge saw, once serve has returned.
func (b *bridge) result() (done *Done, calls []CallRecord, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.done, append([]CallRecord{}, b.calls...), b.err
}
