//go:build unix

package files

import (
	"errors"
	"os/exec"
	"syscall"
)

// killSelf ends the test process the way a crash would: SIGKILL, no
// deferred code, no exit handlers.
func killSelf() { syscall.Kill(syscall.Getpid(), syscall.SIGKILL) }

// killedHard reports whether a child's Wait error says SIGKILL ended it.
func killedHard(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
}
