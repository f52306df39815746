//go:build linux || darwin

package shellsession

import (
	"fmt"
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The session's terminal size: wide, so that tools that lay out for the
// terminal (ls, column, progress bars) rarely wrap, which the model
// would see as broken lines.
const (
	termCols = 200
	termRows = 50
)

// openTerminal opens a pseudo-terminal for a session. The follower end
// becomes the shell's controlling terminal, with echo off — the model
// knows what it typed, and an echo would double every command in its
// context (bash's readline and most REPLs honour the flag) — and the
// window size set. The leader end stays with the sidecar, in the runtime's
// poller, so reads and writes take deadlines.
func openTerminal() (leader, follower *os.File, err error) {
	l, f, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	// pty.Open's ioctls went through Fd(), which leaves a descriptor in
	// blocking mode; a duplicate set non-blocking is pollable again.
	leader, err = pollable(l)
	if err == nil {
		err = prepareFollower(f)
	}
	if err != nil {
		if leader != nil {
			leader.Close()
		}
		f.Close()
		return nil, nil, err
	}
	return leader, f, nil
}

func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("duplicating the terminal: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("terminal: %w", err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

func prepareFollower(f *os.File) error {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return fmt.Errorf("terminal settings: %w", err)
	}
	t.Lflag &^= unix.ECHO | unix.ECHONL
	if err := unix.IoctlSetTermios(fd, setTermios, t); err != nil {
		return fmt.Errorf("terminal settings: %w", err)
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: termRows, Col: termCols}); err != nil {
		return fmt.Errorf("terminal size: %w", err)
	}
	return nil
}

// readsKeys reports whether the program in the foreground of the terminal
// reads it key by key (canonical mode off): bash's readline at its prompt,
// a REPL, an editor, a raw-mode prompt. In canonical (line) mode a command
// is running, or something reads a whole line. The leader end reports the
// follower's settings.
func readsKeys(leader *os.File) bool {
	rc, err := leader.SyscallConn()
	if err != nil {
		return false
	}
	var keys bool
	rc.Control(func(fd uintptr) {
		t, err := unix.IoctlGetTermios(int(fd), getTermios)
		keys = err == nil && t.Lflag&unix.ICANON == 0
	})
	return keys
}
