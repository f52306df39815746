package rpc

import (
	"context"
	"maps"
	"sync"

	"steerable.dev/sidecar/protocol"
)

// ping answers system.ping with Health.
func ping(_ context.Context, s *Server) (any, error) {
	h := s.Health(true)
	return healthReply{h, s.checksJSON.encode(h.Checks)}, nil
}

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
