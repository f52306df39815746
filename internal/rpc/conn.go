package rpc

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/wire"
	"steerable.dev/sidecar/protocol"
)

// Re-exported framings (SPEC §1), for Options.Framing.
const (
	FramingNewline       = wire.FramingNewline
	FramingContentLength = wire.FramingContentLength
)

// frameLimitName is the variable that sets the frame limit, named in the
// error an oversized frame gets.
const frameLimitName = "STEERABLE_MAX_FRAME_BYTES"

// conn is the connection to the host: frames in (wire.Reader) and out
// (wire.Writer). The read loop only queues what it answers; the queue goes
// out in one write before its next read of stdin (the reader's
// beforeRead) or any wait.
type conn struct {
	in        *wire.Reader
	out       *wire.Writer
	inCloser  io.Closer
	closeOnce sync.Once
	log       zerolog.Logger
}

func newConn(in io.Reader, out io.Writer, o Options, log zerolog.Logger, onWriteError func(error)) *conn {
	c := &conn{log: log}
	c.out = wire.NewWriter(out, o.Framing, o.MaxOutputQueueBytes, onWriteError)
	c.in = wire.NewReader(in, o.Framing, o.MaxFrameBytes, frameLimitName, c.out.Flush)
	if cl, ok := in.(io.Closer); ok {
		c.inCloser = cl
	}
	return c
}

// read returns the next frame's bytes (possibly blank), answering and
// skipping frames that cannot be read whole: oversized ones (with their own
// id when it can be recovered) and Content-Length blocks without a length.
// Its error is the input's: the connection ends there.
func (c *conn) read() ([]byte, error) {
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
		case errors.Is(err, wire.ErrBadHeader):
			c.reject(&wire.FrameError{ID: wire.NullID, Code: protocol.CodeInvalidRequest, Message: err.Error()})
		default:
			return frame, err
		}
	}
}

// reject answers a frame that cannot be served and logs it; the read loop
// calls it, so the answer is queued.
func (c *conn) reject(fe *wire.FrameError) {
	c.log.Warn().Int64("code", int64(fe.Code)).RawJSON("id", fe.ID).Str("error", fe.Message).Msg("bad frame answered and skipped")
	_ = c.out.Queue(fe.Reply())
}

// Close closes the input, which ends a read in progress. Output is left
// open: the process is about to exit.
func (c *conn) Close() {
	c.closeOnce.Do(func() {
		if c.inCloser != nil {
			c.inCloser.Close()
		}
	})
}

// readLoop reads frames until the input ends and routes each: requests to
// the dispatcher (which may answer busy, see admit.go), notifications to
// it too, responses to the reverse calls waiting for them. Every frame is
// decoded once (wire.Parse); nothing the host sends closes the connection
// but the end of its input, which starts a graceful shutdown.
func (s *Server) readLoop(c *conn) {
	defer close(s.readDone)
	shedding := false
	for {
		if s.d.full() {
			c.out.Flush() // the wait below may be long
			if !shedding && !s.d.waitRoom(s.d.limits.shedAfter) {
				shedding = true
				s.log.Warn().Dur("waited", s.d.limits.shedAfter).
					Msg("request queue full and no room freed; answering requests that do not fit -32003 busy until it does")
			}
		} else {
			shedding = false
		}
		frame, err := c.read()
		if err != nil {
			c.out.Flush()
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) {
				s.log.Warn().Err(err).Msg("reading stdin failed; treating it as end of input")
			}
			s.peer.hostGone() // nobody can answer a reverse call any more
			s.beginShutdown(ReasonEOF)
			return
		}
		if len(bytes.TrimSpace(frame)) > 0 {
			s.route(c, frame)
		}
	}
}

// route handles one frame.
func (s *Server) route(c *conn, frame []byte) {
	msg, fe := wire.Parse(frame, knownMethods)
	if fe != nil {
		c.reject(fe)
		if msg.Kind == wire.Response {
			s.peer.malformed(msg, fe.Message)
		}
		return
	}
	switch msg.Kind {
	case wire.Request:
		s.d.admit(msg, len(frame))
	case wire.Notification:
		s.d.notification(msg)
	case wire.Response:
		s.peer.deliver(msg)
	default:
		s.log.Warn().Msg("response with a null id ignored: no request of the sidecar's has that id")
	}
}
