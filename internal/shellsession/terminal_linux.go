package shellsession

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

const (
	getTermios = unix.TCGETS
	setTermios = unix.TCSETS
)

// openPTY opens a pseudo-terminal pair. The follower comes from the leader
// itself (TIOCGPTPEER), not by its name under /dev/pts: a name is looked up
// again, and may meet another devpts instance than the one /dev/ptmx
// allocated from (one mounted over /dev/pts, as in containers), or no
// entry at all. The leader is non-blocking, so the runtime's poller serves
// its reads and writes and they take deadlines.
func openPTY() (leader, follower *os.File, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	ffd, name, err := peer(fd)
	if err != nil {
		unix.Close(fd)
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), os.NewFile(uintptr(ffd), name), nil
}

// peer unlocks the leader fd and opens its follower, returning the
// follower's descriptor and name.
func peer(fd int) (int, string, error) {
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		return -1, "", fmt.Errorf("unlocking the terminal: %w", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		return -1, "", fmt.Errorf("the terminal's number: %w", err)
	}
	name := "/dev/pts/" + strconv.FormatUint(uint64(n), 10)
	ffd, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCGPTPEER, uintptr(unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC))
	if errno == 0 {
		return int(ffd), name, nil
	}
	if errno != unix.EINVAL && errno != unix.ENOTTY {
		return -1, "", fmt.Errorf("opening the follower: %w", errno)
	}
	// Before Linux 4.13: by name.
	f, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", fmt.Errorf("open %s: %w", name, err)
	}
	return f, name, nil
}
