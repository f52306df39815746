package rpc

import "context"

// ping answers system.ping with Health.
func ping(_ context.Context, s *Server) (any, error) {
	return s.Health(true), nil
}

// shutdown answers system.shutdown and system.shutdown_now. It stops
// accepting work before the reply goes out, so no request sent after the
// reply can slip in; the rest happens in afterReply.
func shutdown(_ context.Context, s *Server) (any, error) {
	s.closing.Store(true)
	s.d.stopAccepting()
	return nil, nil
}
