package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/wire"
	"steerable.dev/sidecar/protocol"
)

// StreamTransport is MCP's stdio transport over any reader and writer: one
// JSON-RPC message per line, read and written by internal/wire (the frame
// limit, the envelope rules and the bounded writer are serve mode's).
// Unlike the SDK's StdioTransport it never ends the session over bad input
// (see readLoop), answers an oversized request with its own id, holds EOF
// until in-flight calls are answered (or Grace passes), and sends no reply
// to a cancelled request (MCP "Cancellation": the receiver SHOULD NOT
// respond).
type StreamTransport struct {
	In        io.Reader // closed by the connection's Close when it is an io.Closer
	Out       io.Writer
	MaxFrame  int           // longest line in bytes (0: 16 MiB)
	MaxOutput int           // bytes queued for a client that does not read (0: 8 MiB)
	Grace     time.Duration // after EOF, how long in-flight calls may finish
	Log       zerolog.Logger

	direct *direct // set by Server.Connect: the tools/call it answers itself
}

// Defaults of STEERABLE_MAX_FRAME_BYTES and STEERABLE_MAX_OUTPUT_QUEUE_BYTES.
const (
	defaultMaxFrame  = 16 << 20
	defaultMaxOutput = 8 << 20
	frameLimitName   = "STEERABLE_MAX_FRAME_BYTES"
)

// Connect implements mcp.Transport.
func (t *StreamTransport) Connect(context.Context) (mcp.Connection, error) {
	maxFrame, maxOutput := t.MaxFrame, t.MaxOutput
	if maxFrame <= 0 {
		maxFrame = defaultMaxFrame
	}
	if maxOutput <= 0 {
		maxOutput = defaultMaxOutput
	}
	out := wire.NewWriter(t.Out, wire.FramingNewline, maxOutput, nil)
	c := &conn{
		// Before each read of stdin, the error replies the read loop
		// queued go out (wire.Writer.Queue).
		in:       wire.NewReader(t.In, wire.FramingNewline, maxFrame, frameLimitName, out.Flush),
		out:      out,
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
	in       *wire.Reader
	inCloser io.Closer
	out      *wire.Writer
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

// readLoop reads frames until the input ends. Each is checked once
// (wire.Parse): what the SDK would choke on — it closes the connection on
// anything it cannot decode — is answered here, with the request's id
// whenever it can be read (an oversized frame's too), and the next frame
// is read.
func (c *conn) readLoop() {
	for {
		frame, err := c.in.Next()
		var tooLarge *wire.TooLargeError
		switch {
		case errors.As(err, &tooLarge):
			id := wire.NullID
			if tooLarge.ID != nil {
				id = tooLarge.ID
			}
			c.reject(&wire.FrameError{ID: id, Code: protocol.CodeInvalidRequest, Message: tooLarge.Error()})
			continue
		case err != nil:
			c.out.Flush()
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) {
				c.log.Warn().Err(err).Msg("reading stdin failed; treating it as end of input")
			}
			c.eof <- io.EOF
			return
		}
		msg, ok := c.decode(frame)
		if !ok || c.dispatch(msg) {
			continue
		}
		c.out.Flush() // the SDK may take a while to read it
		select {
		case c.incoming <- msg:
		case <-c.closed:
			return
		}
	}
}

// decode turns a frame into the SDK's message, answering it when it cannot
// be one; a blank frame is skipped.
func (c *conn) decode(frame []byte) (jsonrpc.Message, bool) {
	if isBlank(frame) {
		return nil, false
	}
	msg, fe := decodeFrame(frame)
	switch {
	case fe != nil:
		c.reject(fe)
		return nil, false
	case msg == nil:
		c.log.Warn().Msg("response with a null id ignored: no request of the server's has that id")
		return nil, false
	}
	return msg, true
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// reject answers a frame that never reaches the SDK; the reply goes out
// before the next read of stdin.
func (c *conn) reject(fe *wire.FrameError) {
	c.log.Warn().Int64("code", int64(fe.Code)).Str("error", fe.Message).Msg("bad frame answered and skipped")
	_ = c.out.Queue(fe.Reply())
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
	go c.out.Send(errorFrame(jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}))
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

// Write implements mcp.Connection. A reply waits for room in the output
// queue as long as it takes (it is never dropped); the server's own
// requests and notifications wait only as long as their context, and a
// progress notification not at all: when the client does not read, it is
// dropped (a later one supersedes it).
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
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
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == progressMethod {
		c.out.TrySend(b)
		return nil
	}
	return c.out.SendCtx(ctx, b)
}

// progressMethod is MCP's progress notification.
const progressMethod = "notifications/progress"

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
		err = c.out.Send(frame)
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

// Close implements mcp.Connection.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		// What is queued goes out before the process may exit (the
		// session's last replies), for at most the grace period.
		ctx, cancel := context.WithTimeout(context.Background(), c.grace)
		_ = c.out.Drain(ctx)
		cancel()
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
