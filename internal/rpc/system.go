package rpc

import (
	"context"
	"maps"
	"sync"

	"steerable.dev/sidecar/protocol"
)

// ping answers system.ping with Health. Once one has, the checks are
// settled (Services.Checks) and later pings are answered on the read loop.
func ping(_ context.Context, s *Server) (any, error) {
	h := s.Health(true)
	s.settled.Store(true)
	return healthReply{h, s.checksJSON.encode(h.Checks)}, nil
}

// pingOnReader answers system.ping on the read loop once the checks are
// settled: no worker, context or slot, and its reply goes out with the
// rest of its batch. The pings of one batch — the frames of one read of
// the input — share one Health, read and encoded after all of them had
// arrived, so each still reports the state after it was sent.
func pingOnReader(s *Server) (any, bool) {
	if !s.settled.Load() {
		return nil, false
	}
	b := &s.batchHealth
	if b.encoded == nil || b.read != s.st.Reads() {
		checks := s.checks(true)
		b.encoded = s.health(checks).AppendJSONWithChecks(b.encoded[:0], s.checksJSON.encode(checks))
		b.read = s.st.Reads()
	}
	return b.encoded, true
}

// batchHealth is the Health of the read loop's current batch.
type batchHealth struct {
	read    uint64 // the stream's Reads() when it was read
	encoded encodedJSON
}

// encodedJSON is a result already encoded.
type encodedJSON []byte

func (e encodedJSON) AppendJSON(b []byte) ([]byte, error) { return append(b, e...), nil }

// healthReply is a Health whose checks are already encoded.
type healthReply struct {
	protocol.Health
	checks []byte
}

func (r healthReply) AppendJSON(b []byte) ([]byte, error) {
	return r.AppendJSONWithChecks(b, r.checks), nil
}

// checksCache keeps the encoding of the last checks: they rarely change
// between pings, and comparing them costs less than encoding them.
type checksCache struct {
	mu     sync.Mutex
	last   protocol.Checks
	cached []byte
}

func (c *checksCache) encode(checks protocol.Checks) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cached == nil || !maps.Equal(c.last, checks) {
		c.last, c.cached = checks, checks.AppendJSON(nil)
	}
	return c.cached
}

// shutdown answers system.shutdown and system.shutdown_now. It stops
// accepting work before the reply goes out, so no request sent after the
// reply can slip in; the rest happens in afterReply.
func shutdown(_ context.Context, s *Server) (any, error) {
	s.closing.Store(true)
	s.d.stopAccepting()
	return nil, nil
}
