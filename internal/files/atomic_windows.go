package files

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// On Windows the atomic write keeps its shape — a temporary file in the
// target's directory, flushed, then renamed over the target — with three
// differences:
//
//   - os.Root's Rename replaces the target with one rename
//     (FILE_RENAME_REPLACE_IF_EXISTS), atomic on NTFS and ReFS. It fails
//     while another process holds the target open without
//     FILE_SHARE_DELETE — a virus scanner or the search indexer looking at
//     the file for a moment — so replace retries those failures briefly
//     (renameWindow), as the Go toolchain does for the same reason.
//   - Mode bits do not exist: Chmod keeps only the read-only attribute
//     (a mode without the owner's write bit), and file ownership is not
//     changed (fileOwner reports none).
//   - A directory cannot be flushed; syncDir's failure is ignored, NTFS
//     journals the rename itself.
//
// readFlags has no O_NONBLOCK or O_NOFOLLOW: there are no FIFOs or devices
// in a directory tree, and os.Root refuses device names (CON, NUL, …) and
// every path that leaves the root.
const readFlags = os.O_RDONLY

// renameWindow bounds the retries of a rename another process blocks.
const renameWindow = 500 * time.Millisecond

// replace renames the root name from over to, retrying while another
// process briefly holds the target.
func (w *Workspace) replace(from, to string) error {
	deadline := time.Now().Add(renameWindow)
	for delay := time.Millisecond; ; delay *= 2 {
		err := w.root.Rename(from, to)
		if err == nil || !transientRename(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
	}
}

// transientRename reports whether a rename failed because another process
// holds the file open for a moment.
func transientRename(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// fileOwner reports no owner: a rewrite never changes ownership on
// Windows.
func fileOwner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
