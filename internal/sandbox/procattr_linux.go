package sandbox

import "syscall"

// sysProcAttr starts the child as the leader of a new session — so of its
// own process group, which is what the sidecar kills, and with no
// controlling terminal to inject keystrokes into — and asks the kernel to
// SIGKILL it if the sidecar dies (PR_SET_PDEATHSIG), even by SIGKILL.
//
// PR_SET_PDEATHSIG fires when the thread that forked the child exits. Go
// retires an OS thread only when a goroutine locked to it returns without
// unlocking, which the sidecar never does on the paths that start children.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
