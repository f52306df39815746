package main

import (
	"fmt"
	"time"

	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// openSessions gives bash_session and write_stdin their session table
// (closed by app.close, so every shell ends with the sidecar) and reports
// it in checks.sessions. Without the sandbox and the workspace bash is not
// registered, and neither are they; STEERABLE_MAX_SESSIONS=0 turns them
// off.
func (a *app) openSessions(deps *tools.Deps) {
	c := a.cfg
	switch {
	case a.sandbox == nil || a.files == nil:
		return
	case c.MaxSessions == 0:
		a.checks["sessions"] = protocol.Check{Status: protocol.CheckOK, Message: "shell sessions off (STEERABLE_MAX_SESSIONS=0)"}
		return
	}
	m, err := shellsession.New(shellsession.Options{Sandbox: a.sandbox, Dir: string(a.cfg.Workspace),
		BufferBytes: int(c.SessionBufferBytes), MaxSessions: c.MaxSessions,
		Idle: time.Duration(c.SessionIdleMs) * time.Millisecond, Log: a.log})
	if err != nil {
		a.checks["sessions"] = protocol.Check{Status: protocol.CheckWarn, Message: err.Error() + "; bash_session and write_stdin are not registered"}
		return
	}
	a.sessions, deps.Sessions = m, m
	a.checks["sessions"] = protocol.Check{Status: protocol.CheckOK, Message: fmt.Sprintf(
		"up to %d shell sessions, %d bytes of output kept each, ended after %s without a call",
		c.MaxSessions, c.SessionBufferBytes, time.Duration(c.SessionIdleMs)*time.Millisecond)}
}
