//go:build unix

package codesearch

import (
	"os"

	"golang.org/x/sys/unix"
)

// listable returns a file to read the entries of the directory open as
// dir. A directory opened through an os.Root lstats every entry as it is
// listed (Go cannot give its entries a lazy Info otherwise), a syscall per
// entry that a walk does not need: the type comes with the listing, and
// the walk never asks for the rest. A duplicate of the descriptor, outside
// the Root, lists lazily; an entry of unknown type is still stat'ed
// relative to the descriptor, never by path. The caller closes both.
func listable(dir *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(dir.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), dir.Name()), nil
}
