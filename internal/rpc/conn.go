package rpc

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/sourcegraph/jsonrpc2"

	"steerable.dev/sidecar/internal/wire"
)

// Re-exported framings (SPEC §1), for Options.Framing.
const (
	FramingNewline       = wire.FramingNewline
	FramingContentLength = wire.FramingContentLength
)

// frameLimitName is the variable that sets the frame limit, named in the
// error an oversized frame gets.
const frameLimitName = "STEERABLE_MAX_FRAME_BYTES"

// connect opens the connection to the host: a jsonrpc2.Conn over a
// wire.ObjectStream, with the server as its handler. Reading starts once
// the stream is started (after lifecycle.ready).
func (s *Server) connect(in io.Reader, out io.Writer) {
	s.st = wire.NewObjectStream(in, out, wire.StreamOptions{
		Framing: s.opts.Framing, MaxFrameBytes: s.opts.MaxFrameBytes, LimitName: frameLimitName,
		MaxQueueBytes: s.opts.MaxOutputQueueBytes, Known: knownMethods,
		BeforeRead: s.pace,
		OnReject: func(fe *wire.FrameError) {
			s.log.Warn().Int64("code", int64(fe.Code)).RawJSON("id", fe.ID).Str("error", fe.Message).Msg("bad frame answered and skipped")
		},
		OnEnd: func(err error) {
			if readFailed(err) {
				s.log.Warn().Err(err).Msg("reading stdin failed; treating it as end of input")
			}
			s.beginShutdown(ReasonEOF)
		},
		OnNullID: func() { s.log.Warn().Msg("response with a null id ignored: no request of the sidecar's has that id") },
		OnWriteError: func(err error) {
			s.log.Warn().Err(err).Msg("writing to stdout failed; the host is gone")
			go s.conn.Close() // pending reverse calls end: nobody can answer them
			s.ShutdownNow(ReasonEOF)
		},
	})
	s.conn = jsonrpc2.NewConn(context.Background(), s.st, s,
		jsonrpc2.SetLogger(discardLogger{}), jsonrpc2.OnRecv(s.peer.unmatched))
	s.peer.bind(s.conn)
}

// pace runs before each read of stdin (wire.StreamOptions.BeforeRead):
// while the request queue is full the read loop waits for room, and after
// shedAfter reads on, answering the requests that do not fit -32003 busy
// (admit.go).
func (s *Server) pace() {
	if !s.d.full() {
		s.shedding = false
		return
	}
	s.st.Writer().Flush() // the wait below may be long
	if !s.shedding && !s.d.waitRoom(s.d.limits.shedAfter) {
		s.shedding = true
		s.log.Warn().Dur("waited", s.d.limits.shedAfter).
			Msg("request queue full and no room freed; answering requests that do not fit -32003 busy until it does")
	}
}

// Handle implements jsonrpc2.Handler. The Conn calls it on its read loop
// for each request and notification, in order: requests go to admission
// (which may answer busy, see admit.go), notifications to the dispatcher.
// Every frame was decoded once, by the stream (wire.Parse).
func (s *Server) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	msg, size, ok := s.st.Last(req)
	if !ok {
		return // not read by the stream: cannot happen
	}
	if msg.Kind == wire.Notification {
		s.d.notification(msg)
		return
	}
	s.d.admit(msg, size)
}

// readFailed logs an input error that is not the end of the input.
func readFailed(err error) bool {
	return !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, io.ErrClosedPipe)
}

// discardLogger silences the Conn's own log: the sidecar logs what matters
// (unmatched replies, bad frames) itself, to stderr as JSON.
type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
