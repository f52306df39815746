package shellsession

import (
	"errors"

	"steerable.dev/sidecar/protocol"
)

// Records is session.list in protocol types: every session, oldest first.
// rpc depends on this shape, not on Manager.
func (m *Manager) Records() []protocol.SessionRecord {
	infos := m.List()
	out := make([]protocol.SessionRecord, 0, len(infos))
	for _, in := range infos {
		out = append(out, record(in))
	}
	return out
}

// HostClose is session.close: the host ends one session, killing its whole
// tree. Its errors are *protocol.Error: invalid params, with the ids that
// do exist, for an id that names no session; policy denied otherwise.
func (m *Manager) HostClose(id string) (protocol.SessionRecord, error) {
	in, err := m.Info(id)
	if err == nil {
		var res Result
		res, err = m.End(id, "was closed by the host (session.close)", 1000)
		in.Exited, in.ExitCode = res.Exited, res.ExitCode
	}
	var unknown *UnknownError
	switch {
	case errors.As(err, &unknown):
		return protocol.SessionRecord{}, protocol.Errorf(protocol.CodeInvalidParams, "%v", err).WithData("sessions", append([]string{}, unknown.Live...))
	case err != nil:
		return protocol.SessionRecord{}, protocol.Errorf(protocol.CodePolicyDenied, "%v", err)
	}
	return record(in), nil
}

func record(in Info) protocol.SessionRecord {
	r := protocol.SessionRecord{ID: in.ID, Command: in.Command, Exited: in.Exited,
		StartedAt: protocol.Time(in.StartedAt), LastActivity: protocol.Time(in.LastActivity)}
	if in.Exited {
		code := in.ExitCode
		r.ExitCode = &code
	}
	return r
}
