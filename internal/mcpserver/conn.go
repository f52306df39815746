package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
)

// StreamTransport is MCP's stdio transport over any reader and writer: one
// JSON-RPC message per line. Unlike the SDK's StdioTransport it never ends
// the session over bad input (see decodeFrame), holds EOF until in-flight
// calls are answered (or Grace passes), and sends no reply to a cancelled
// request (MCP "Cancellation": the receiver SHOULD NOT respond).
type StreamTransport struct {
	In       io.Reader // closed by the connection's Close when it is an io.Closer
	Out      io.Writer
	MaxFrame int           // longest line in bytes (0: 16 MiB)
	Grace    time.Duration // after EOF, how long in-flight calls may finish
	Log      zerolog.Logger

	direct *direct // set by Server.Connect: the tools/call it answers itself
}

// defaultMaxFrame matches STEERABLE_MAX_FRAME_BYTES's default.
const defaultMaxFrame = 16 << 20

// Connect implements mcp.Transport.
func (t *StreamTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxFrame
	if max <= 0 {
		max = defaultMaxFrame
	}
	c := &conn{
		lines:    &lineReader{in: bufio.NewReaderSize(t.In, 64<<10), max: max},
		out:      newFrameWriter(t.Out),
		direct:   t.direct,
		grace:    t.Grace,
		log:      t.Log,
		incoming: make(chan jsonrpc.Message),
		eof:      make(chan error, 1),
		closed:   make(chan struct{}),
		inflight: map[jsonrpc.ID]callState{},
		idle:     closedChan(),
	}
	c.base, c.cancelAll = context.WithCancel(context.Background())
	if cl, ok := t.In.(io.Closer); ok {
		c.inCloser = cl
	}
	go c.readLoop()
	return c, nil
}

// conn is one session's connection. The read loop decodes lines and answers
// bad ones itself; Read hands valid messages to the SDK and keeps the
// in-flight set that EOF and cancellation need.
type conn struct {
	lines    *lineReader
	inCloser io.Closer
	out      *frameWriter
	direct   *direct // nil: every message goes to the SDK
	grace    time.Duration
	log      zerolog.Logger

	incoming  chan jsonrpc.Message
	eof       chan error // the read loop's last error (io.EOF at end of input)
	closed    chan struct{}
	closeOnce sync.Once
	base      context.Context // the direct calls' parent, cancelled by Close
	cancelAll context.CancelFunc

	mu       sync.Mutex
	inflight map[jsonrpc.ID]callState // incoming calls not answered yet
	idle     chan struct{}            // closed while inflight is empty
}

// callState is an incoming call not answered yet.
type callState struct {
	cancelled bool               // a notifications/cancelled named it: its reply is dropped
	cancel    context.CancelFunc // a direct call's; nil for the SDK's, which cancels its own
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// readLoop reads frames until the input ends, answering bad ones.
func (c *conn) readLoop() {
	for {
		line, err := c.lines.next()
		switch {
		case errors.Is(err, errFrameTooLarge):
			c.reject(&badFrame{code: jsonrpc.CodeInvalidRequest,
				msg: fmt.Sprintf("frame exceeds %d bytes (STEERABLE_MAX_FRAME_BYTES) and was discarded", c.lines.max)})
			continue
		case err != nil:
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) {
				c.log.Warn().Err(err).Msg("reading stdin failed; treating it as end of input")
			}
			c.eof <- io.EOF
			return
		}
		if len(line) == 0 || isBlank(line) {
			continue
		}
		msg, bad := decodeFrame(line)
		if bad != nil {
			c.reject(bad)
			continue
		}
		if c.dispatch(msg) {
			continue
		}
		select {
		case c.incoming <- msg:
		case <-c.closed:
			return
		}
	}
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

func (c *conn) reject(b *badFrame) {
	c.log.Warn().Int64("code", b.code).Str("error", b.msg).Msg("bad frame answered and skipped")
	_ = c.writeFrame(errorFrame(b.id, &jsonrpc.Error{Code: b.code, Message: b.msg}))
}

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case err := <-c.eof:
		c.drain()
		return nil, err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// dispatch records msg before it goes on: an incoming call joins the
// in-flight set, and a notifications/cancelled marks the call it names, so
// its late reply is dropped, and cancels it when it is a direct one. A
// tools/call the direct path takes runs here, off the read loop, and
// dispatch reports true: the SDK never sees it.
func (c *conn) dispatch(msg jsonrpc.Message) (handled bool) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.IsCall():
		prev, dup := c.inflight[req.ID]
		switch {
		case dup && prev.cancel != nil:
			// The SDK does not know the direct call, so it cannot refuse
			// the duplicate as it does its own.
			c.rejectDuplicate(req.ID)
			return true
		case dup:
			return false // the SDK refuses the duplicate
		}
		if c.direct != nil {
			if run, ok := c.direct.take(req); ok {
				c.startDirect(req.ID, run)
				return true
			}
		}
		c.startTracking(req.ID, callState{})
	case req.Method == "notifications/cancelled":
		if id, ok := cancelledID(req); ok {
			if st, live := c.inflight[id]; live {
				st.cancelled = true
				c.inflight[id] = st
				if st.cancel != nil {
					st.cancel()
				}
			}
		}
	}
	return false
}

// startTracking adds a call to the in-flight set; c.mu is held.
func (c *conn) startTracking(id jsonrpc.ID, st callState) {
	if len(c.inflight) == 0 {
		c.idle = make(chan struct{})
	}
	c.inflight[id] = st
}

// startDirect runs a direct call and delivers its reply; c.mu is held.
func (c *conn) startDirect(id jsonrpc.ID, run func(context.Context) []byte) {
	ctx, cancel := context.WithCancel(c.base)
	c.startTracking(id, callState{cancel: cancel})
	go func() {
		defer cancel()
		_ = c.deliver(id, run(ctx))
	}()
}

// rejectDuplicate answers a call whose id a direct call in flight holds, as
// the SDK answers its own duplicates: with a null id, so the error is not
// taken for the first call's reply; c.mu is held.
func (c *conn) rejectDuplicate(id jsonrpc.ID) {
	msg := fmt.Sprintf("invalid request: request ID %v already in use", id.Raw())
	c.log.Warn().Str("error", msg).Msg("bad frame answered and skipped")
	go c.writeFrame(errorFrame(jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}))
}

// drain waits, after EOF, until every in-flight call is answered, the grace
// period ends or the connection closes; the SDK then cancels the rest.
func (c *conn) drain() {
	c.mu.Lock()
	idle := c.idle
	c.mu.Unlock()
	t := time.NewTimer(c.grace)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
		c.log.Warn().Dur("grace", c.grace).Msg("end of input: cancelling calls still running after the grace period")
	case <-c.closed:
	}
}

// Write implements mcp.Connection.
func (c *conn) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if resp.Error != nil {
			return c.deliver(resp.ID, errorFrame(resp.ID, wireError(resp.Error)))
		}
		return c.deliver(resp.ID, resultFrame(resp.ID, resp.Result))
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	return c.writeFrame(append(b, '\n'))
}

// resultFrame encodes a reply by hand: the SDK's encoder would re-validate
// the result, which is compact JSON already (the SDK's encoding).
func resultFrame(rid jsonrpc.ID, result json.RawMessage) []byte {
	id, _ := json.Marshal(rid.Raw())
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	b := make([]byte, 0, len(result)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, "}\n"...)
}

// deliver writes the reply to call id, unless a notifications/cancelled
// named it (the client no longer waits for it), and only then takes the
// call out of the in-flight set: after EOF, the session must not end
// between the two.
func (c *conn) deliver(id jsonrpc.ID, frame []byte) error {
	c.mu.Lock()
	st := c.inflight[id]
	c.mu.Unlock()
	var err error
	if !st.cancelled {
		err = c.writeFrame(frame)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, live := c.inflight[id]; live {
		delete(c.inflight, id)
		if len(c.inflight) == 0 {
			close(c.idle)
		}
	}
	return err
}

func (c *conn) writeFrame(b []byte) error { return c.out.write(b) }

// Close implements mcp.Connection.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.cancelAll() // the direct calls, as the SDK cancels its own
		if c.inCloser != nil {
			c.inCloser.Close()
		}
	})
	return nil
}

// SessionID implements mcp.Connection: stdio sessions have none.
func (c *conn) SessionID() string { return "" }

var _ mcp.Connection = (*conn)(nil)
