package rpc

import (
	"context"

	"steerable.dev/sidecar/protocol"
)

// Sessions are bash_session's shells the session.* methods act on (SPEC
// §2). HostClose's errors are *protocol.Error: invalid params (with the
// live ids as data) for an id that names no session.
type Sessions interface {
	Records() []protocol.SessionRecord
	HostClose(id string) (protocol.SessionRecord, error)
}

// sessionList answers session.list: bash_session's shells, for a host UI.
func sessionList(_ context.Context, s *Server) (any, error) {
	if s.svc.Sessions == nil {
		return nil, errNoSessions
	}
	return protocol.SessionListResult{Sessions: s.svc.Sessions.Records()}, nil
}

// sessionClose answers session.close: the host ends one session, killing
// its whole tree. An id that names no session is invalid params, with the
// ids that do.
func sessionClose(_ context.Context, s *Server, p protocol.SessionCloseParams) (any, error) {
	if s.svc.Sessions == nil {
		return nil, errNoSessions
	}
	id := p.Session()
	if id == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "session.close needs sessionId: the session to end, as bash_session's result names it (session.list lists them)")
	}
	rec, err := s.svc.Sessions.HostClose(id)
	if err != nil {
		return nil, err
	}
	return protocol.SessionCloseResult{Session: rec}, nil
}

var errNoSessions = protocol.Errorf(protocol.CodePolicyDenied,
	"this sidecar has no shell sessions (bash_session is not registered: no sandbox, or STEERABLE_MAX_SESSIONS=0)")
