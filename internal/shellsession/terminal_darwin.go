package shellsession

import (
	"fmt"
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
)

// openPTY opens a pseudo-terminal pair (posix_openpt, grantpt, unlockpt,
// then the follower by name: macOS has no TIOCGPTPEER). The leader is a
// non-blocking duplicate: pty.Open's ioctls went through Fd(), which
// leaves a descriptor in blocking mode, and a duplicate set non-blocking
// is in the runtime's poller again, so reads and writes take deadlines.
func openPTY() (leader, follower *os.File, err error) {
	l, f, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	defer l.Close()
	fd, err := unix.FcntlInt(l.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err == nil {
		err = unix.SetNonblock(fd, true)
		if err != nil {
			unix.Close(fd)
		}
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("duplicating the terminal: %w", err)
	}
	return os.NewFile(uintptr(fd), l.Name()), f, nil
}
