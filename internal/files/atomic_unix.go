//go:build unix

package files

import (
	"io/fs"
	"os"
	"syscall"
)

// readFlags open a file for reading: O_NONBLOCK so a FIFO or a device
// cannot block the open (the caller refuses anything but a regular file),
// O_NOFOLLOW so a symlink swapped in since Resolve is refused.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// replace renames the root name from over to: rename(2) replaces the
// target atomically.
func (w *Workspace) replace(from, to string) error { return w.root.Rename(from, to) }

// fileOwner is the uid and gid of fi, for a rewrite to keep them.
func fileOwner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
