package launch

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// freshSessionKeyring gives the calling thread — the locked thread that is
// about to start a child — a new, empty, anonymous session keyring, so the
// child does not possess the sidecar's own session keyring (the kernel's
// keyrings are not namespaced: whoever possesses a keyring searches and
// reads its keys). A thread's keyrings are part of its credentials, which
// the thread alone commits, so the sidecar's other threads keep theirs.
// The seccomp filter refuses every keyring syscall inside the sandbox as
// well (seccomp_linux.go); this closes what the filter cannot: /proc/keys
// lists a possessed key to its possessor, and backend none has no filter.
//
// Where the sidecar itself may not use keyrings (a container's seccomp
// profile refuses keyctl with EPERM or ENOSYS) its children cannot either,
// and nothing is left to close.
func freshSessionKeyring() error {
	_, _, errno := unix.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0)
	switch {
	case errno == 0, errors.Is(errno, unix.ENOSYS), errors.Is(errno, unix.EPERM):
		return nil
	}
	return fmt.Errorf("a fresh session keyring for the command: %w", errno)
}
