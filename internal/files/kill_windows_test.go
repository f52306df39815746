package files

import (
	"errors"
	"os"
	"os/exec"
)

// killSelf ends the test process the way a crash would: TerminateProcess,
// no deferred code, exit code 1.
func killSelf() {
	p, _ := os.FindProcess(os.Getpid())
	p.Kill()
}

// killedHard reports whether a child ended by TerminateProcess (Kill's exit
// code 1); the writer and committer children otherwise exit 0 or 3.
func killedHard(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == 1
}
