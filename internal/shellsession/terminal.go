//go:build linux || darwin

package shellsession

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// The session's terminal size: wide, so that tools that lay out for the
// terminal (ls, column, progress bars) rarely wrap, which the model
// would see as broken lines.
const (
	termCols = 200
	termRows = 50
)

// errNoTerminal is nil where sessions have their pseudo-terminal.
var errNoTerminal error

// openTerminal opens a pseudo-terminal for a session. The follower end
// becomes the shell's controlling terminal, with echo off — the model
// knows what it typed, and an echo would double every command in its
// context (bash's readline and most REPLs honour the flag) — and the
// window size set, and no XON/XOFF flow control. The leader end stays
// with the sidecar, in the runtime's poller, so reads and writes take
// deadlines.
func openTerminal() (leader, follower *os.File, err error) {
	leader, follower, err = openPTY()
	if err != nil {
		return nil, nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	if err := prepareFollower(follower); err != nil {
		leader.Close()
		follower.Close()
		return nil, nil, err
	}
	return leader, follower, nil
}

func prepareFollower(f *os.File) error {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return fmt.Errorf("terminal settings: %w", err)
	}
	t.Lflag &^= unix.ECHO | unix.ECHONL
	t.Iflag &^= unix.IXON // no flow control: a stray Ctrl-S would freeze the output until a Ctrl-Q
	if err := unix.IoctlSetTermios(fd, setTermios, t); err != nil {
		return fmt.Errorf("terminal settings: %w", err)
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: termRows, Col: termCols}); err != nil {
		return fmt.Errorf("terminal size: %w", err)
	}
	return nil
}

// terminalState reads the follower's mode through the leader end:
// whether the program in the foreground reads the terminal key by key
// (canonical mode off: bash's readline at its prompt, a REPL, an editor, a
// raw-mode prompt; in line mode a command runs, or something reads a
// whole line), and the foreground process group (0 when unknown).
func terminalState(leader *os.File) (keys bool, fg int) {
	rc, err := leader.SyscallConn()
	if err != nil {
		return false, 0
	}
	rc.Control(func(fd uintptr) {
		t, err := unix.IoctlGetTermios(int(fd), getTermios)
		keys = err == nil && t.Lflag&unix.ICANON == 0
		if pg, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil {
			fg = pg
		}
	})
	return keys, fg
}
