package rpc

import (
	"context"
	"errors"
	"time"

	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/protocol"
)

// sessionList answers session.list: bash_session's shells, for a host UI.
func sessionList(_ context.Context, s *Server) (any, error) {
	if s.svc.Sessions == nil {
		return nil, errNoSessions
	}
	infos := s.svc.Sessions.List()
	out := protocol.SessionListResult{Sessions: make([]protocol.SessionRecord, 0, len(infos))}
	for _, in := range infos {
		out.Sessions = append(out.Sessions, sessionRecord(in))
	}
	return out, nil
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
	in, err := s.svc.Sessions.Info(id)
	if err == nil {
		var res shellsession.Result
		res, err = s.svc.Sessions.End(id, "was closed by the host (session.close)", 1000)
		in.Exited, in.ExitCode = res.Exited, res.ExitCode
	}
	var unknown *shellsession.UnknownError
	switch {
	case errors.As(err, &unknown):
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "%v", err).WithData("sessions", append([]string{}, unknown.Live...))
	case err != nil:
		return nil, protocol.Errorf(protocol.CodePolicyDenied, "%v", err)
	}
	return protocol.SessionCloseResult{Session: sessionRecord(in)}, nil
}

func sessionRecord(in shellsession.Info) protocol.SessionRecord {
	r := protocol.SessionRecord{ID: in.ID, Command: in.Command, Exited: in.Exited,
		StartedAt: wireTime(in.StartedAt), LastActivity: wireTime(in.LastActivity)}
	if in.Exited {
		code := in.ExitCode
		r.ExitCode = &code
	}
	return r
}

func wireTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

var errNoSessions = protocol.Errorf(protocol.CodePolicyDenied,
	"this sidecar has no shell sessions (bash_session is not registered: no sandbox, or STEERABLE_MAX_SESSIONS=0)")
