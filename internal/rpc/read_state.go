package rpc

import (
	"context"

	"steerable.dev/sidecar/protocol"
)

// ReadState is the session's read state the read_state.* methods act on
// (SPEC §4.1 "Resume"). Resume's errors are the host's mistakes (invalid
// params).
type ReadState interface {
	Resume(p protocol.ReadStateSeedParams) (protocol.ReadStateSeedResult, error)
	Versions() protocol.ReadStateGetResult
}

// readStateSeed answers read_state.seed: rebuild the session's read state
// after a restart from the host's record (SPEC §4.1 "Resume").
func readStateSeed(_ context.Context, s *Server, p protocol.ReadStateSeedParams) (any, error) {
	if s.svc.ReadState == nil {
		return nil, errNoReadState
	}
	res, err := s.svc.ReadState.Resume(p)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err)
	}
	return res, nil
}

// readStateGet answers read_state.get: every tracked path and its version.
func readStateGet(_ context.Context, s *Server) (any, error) {
	if s.svc.ReadState == nil {
		return nil, errNoReadState
	}
	return s.svc.ReadState.Versions(), nil
}

var errNoReadState = protocol.Errorf(protocol.CodePolicyDenied, "this sidecar has no file tools, so it keeps no read state")
