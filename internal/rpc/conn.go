package rpc

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// readLoop reads frames until the input ends and routes each: requests to
// the dispatcher (which may answer busy, see admit.go), notifications to
// it too, responses to the reverse calls waiting for them. Every frame is
// decoded once (parseFrame); nothing the host sends closes the connection
// but the end of its input, which starts a graceful shutdown.
func (s *Server) readLoop(st *stream) {
	defer close(s.readDone)
	shedding := false
	for {
		if s.d.full() {
			st.flushQueued() // the wait below may be long
			if !shedding && !s.d.waitRoom(s.d.limits.shedAfter) {
				shedding = true
				s.log.Warn().Dur("waited", s.d.limits.shedAfter).
					Msg("request queue full and no room freed; answering requests that do not fit -32003 busy until it does")
			}
		} else {
			shedding = false
		}
		frame, err := st.read()
		if err != nil {
			st.flushQueued()
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) {
				s.log.Warn().Err(err).Msg("reading stdin failed; treating it as end of input")
			}
			s.peer.hostGone() // nobody can answer a reverse call any more
			s.beginShutdown(ReasonEOF)
			return
		}
		if len(bytes.TrimSpace(frame)) > 0 {
			s.route(st, frame)
		}
	}
}

// route handles one frame.
func (s *Server) route(st *stream, frame []byte) {
	msg, fe := parseFrame(frame)
	if fe != nil {
		st.reject(fe)
		if msg.kind == kindResponse {
			s.peer.malformed(msg, fe.msg)
		}
		return
	}
	switch msg.kind {
	case kindRequest:
		s.d.admit(msg, len(frame))
	case kindNotification:
		s.d.notification(msg)
	case kindResponse:
		s.peer.deliver(msg)
	default:
		s.log.Warn().Msg("response with a null id ignored: no request of the sidecar's has that id")
	}
}
