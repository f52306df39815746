//go:build !linux && !darwin

package shellsession

import (
	"errors"
	"os"
)

// errNoTerminal: shell sessions need a Unix pseudo-terminal, job control
// and bash; on this platform New refuses, and bash_session and
// write_stdin are not registered.
var errNoTerminal = errors.New("shell sessions are not supported on this platform: they need a Unix pseudo-terminal")

func openTerminal() (leader, follower *os.File, err error) { return nil, nil, errNoTerminal }

func terminalState(*os.File) (keys bool, fg int) { return false, 0 }
