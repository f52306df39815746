package rpc

import (
	"context"

	"steerable.dev/sidecar/protocol"
)

// readStateSeed answers read_state.seed: rebuild the session's read state
// after a restart from the host's record (SPEC §4.1 "Resume").
func readStateSeed(_ context.Context, s *Server, p protocol.ReadStateSeedParams) (any, error) {
	if s.svc.ReadState == nil {
		return nil, errNoReadState
	}
	res, err := s.svc.ReadState.Seed(p.State, p.Messages)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err)
	}
	return protocol.ReadStateSeedResult{Seeded: res.Seeded, Skipped: res.Skipped}, nil
}

// readStateGet answers read_state.get: every tracked path and its version.
func readStateGet(_ context.Context, s *Server) (any, error) {
	if s.svc.ReadState == nil {
		return nil, errNoReadState
	}
	return protocol.ReadStateGetResult{State: s.svc.ReadState.Snapshot()}, nil
}

var errNoReadState = protocol.Errorf(protocol.CodePolicyDenied, "this sidecar has no file tools, so it keeps no read state")
