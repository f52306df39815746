//go:build unix

package mcptest

import "syscall"

// ownSession makes a child the leader of a session of its own (the spawn
// tool's setsid), the way an escaping grandchild would.
func ownSession(on bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: on} }
