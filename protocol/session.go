package protocol

// Shell-session methods, host → sidecar (bash_session's sessions, for a
// host UI).
const (
	MethodSessionList  = "session.list"
	MethodSessionClose = "session.close"
)

// SessionRecord describes one shell session. Times are RFC 3339 in UTC
// with milliseconds.
type SessionRecord struct {
	ID           string `json:"id"`
	Command      string `json:"command"` // what bash_session opened it with ("" for a bare shell)
	StartedAt    string `json:"startedAt"`
	LastActivity string `json:"lastActivity"` // the end of the last call that touched it
	Exited       bool   `json:"exited"`
	ExitCode     *int   `json:"exitCode,omitempty"` // when exited
}

// SessionListResult is the result of session.list.
type SessionListResult struct {
	Sessions []SessionRecord `json:"sessions"`
}

// SessionCloseParams are the params of session.close: SPEC §2 names the
// session sessionId, as bash_session's results do; id is read too, so
// hosts written against that spelling keep working.
type SessionCloseParams struct {
	SessionID string `json:"sessionId,omitempty"`
	ID        string `json:"id,omitempty"` // sessionId's other spelling
}

// Session is the session to close: sessionId, else id.
func (p SessionCloseParams) Session() string {
	if p.SessionID != "" {
		return p.SessionID
	}
	return p.ID
}

// SessionCloseResult is the result of session.close: the session as it
// ended.
type SessionCloseResult struct {
	Session SessionRecord `json:"session"`
}
