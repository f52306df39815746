package plugins

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/protocol"
)

// progressInterval is the least time between two tool.progress
// notifications of one call: MCP progress is a status, so only the latest
// matters, and a server reporting in a tight loop must not flood the host.
const progressInterval = 100 * time.Millisecond

// progressCalls routes a server's notifications/progress to the calls that
// asked for them, by progress token (one per call).
type progressCalls struct {
	host hostNotifier
	mu   sync.Mutex
	next int64
	sink map[string]*progressSink
}

func newProgressCalls(host hostNotifier) *progressCalls {
	return &progressCalls{host: host, sink: map[string]*progressSink{}}
}

// start registers a call and returns its token; done ends it, sending what
// is pending, so every notification of a call precedes its result —
// including those read before the result and not yet handled.
func (p *progressCalls) start(callID string) (token string, done func()) {
	p.mu.Lock()
	p.next++
	token = "steerable-" + strconv.FormatInt(p.next, 10)
	s := &progressSink{host: p.host, callID: callID}
	p.sink[token] = s
	p.mu.Unlock()
	return token, func() {
		s.drain(drainBound)
		p.mu.Lock()
		delete(p.sink, token)
		p.mu.Unlock()
		s.close()
	}
}

// drainBound bounds how long a result waits for progress read before it
// whose handling has not yet run: only a notification the SDK refuses to
// hand over (its params invalid) is ever waited for that long.
var drainBound = 2 * time.Second

// lookup is the sink of a call in progress, or nil.
func (p *progressCalls) lookup(token string) *progressSink {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sink[token]
}

// arrived counts a progress notification the connection has read, before
// the session hands it to handle.
func (p *progressCalls) arrived(token string) {
	if s := p.lookup(token); s != nil {
		s.arrive()
	}
}

// handle is the client's ProgressNotificationHandler.
func (p *progressCalls) handle(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	token, _ := req.Params.ProgressToken.(string)
	if s := p.lookup(token); s != nil {
		s.offer(progressLine(req.Params))
		s.handled()
	}
}

// progressLine is how MCP progress reads in a tool.progress chunk (on the
// stderr stream: it is status, not output).
func progressLine(pp *mcp.ProgressNotificationParams) string {
	line := "[progress " + strconv.FormatFloat(pp.Progress, 'f', -1, 64)
	if pp.Total > 0 {
		line += "/" + strconv.FormatFloat(pp.Total, 'f', -1, 64)
	}
	line += "]"
	if pp.Message != "" {
		line += " " + clip.Within(pp.Message, 500)
	}
	return line + "\n"
}

// progressSink coalesces one call's progress: at most one notification per
// progressInterval, the latest one winning.
type progressSink struct {
	host   hostNotifier
	callID string

	mu      sync.Mutex // held while sending, so sends keep their order
	last    time.Time
	pending string
	timer   *time.Timer
	closed  bool

	unhandled int           // notifications read and not yet handled
	drained   chan struct{} // closed when unhandled returns to 0
}

func (s *progressSink) arrive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unhandled == 0 {
		s.drained = make(chan struct{})
	}
	s.unhandled++
}

func (s *progressSink) handled() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unhandled > 0 {
		if s.unhandled--; s.unhandled == 0 {
			close(s.drained)
		}
	}
}

// drain waits, at most bound, until every notification read has been
// handled.
func (s *progressSink) drain(bound time.Duration) {
	s.mu.Lock()
	ch := s.drained
	waiting := s.unhandled > 0
	s.mu.Unlock()
	if !waiting {
		return
	}
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

func (s *progressSink) offer(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.pending = line
	if s.timer == nil {
		s.due()
	}
}

// due sends the pending line if the interval has passed, else arms the
// timer for when it will have; the caller holds mu.
func (s *progressSink) due() {
	if wait := progressInterval - time.Since(s.last); wait > 0 {
		s.timer = time.AfterFunc(wait, s.flush)
		return
	}
	s.send(s.pending)
}

func (s *progressSink) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timer = nil
	if !s.closed && s.pending != "" {
		s.due()
	}
}

func (s *progressSink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.pending != "" {
		s.send(s.pending)
	}
	s.closed = true
}

// send writes one notification; the caller holds mu.
func (s *progressSink) send(line string) {
	s.pending, s.last = "", time.Now()
	err := s.host.Notify(context.Background(), protocol.NotificationProgress,
		protocol.ToolProgressParams{CallID: s.callID, Stream: "stderr", Chunk: line})
	_ = err // a host that is gone misses live progress, never the result
}
