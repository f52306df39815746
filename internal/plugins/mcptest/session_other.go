//go:build !unix

package mcptest

import "syscall"

// ownSession is a no-op where there are no sessions: the spawn tool's
// child stays in the server's job.
func ownSession(bool) *syscall.SysProcAttr { return nil }
