//go:build !linux

package sandbox

import "syscall"

// sysProcAttr starts the child as the leader of a new session (its own
// process group, no controlling terminal). There is no PR_SET_PDEATHSIG
// outside Linux: a SIGKILLed sidecar leaves its children running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
