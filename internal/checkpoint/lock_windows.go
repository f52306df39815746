package checkpoint

import (
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// lockDir holds the store's lock file for the life of the process: one
// sidecar appends to a workspace's log at a time.
func lockDir(dir string) (io.Closer, error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, ErrLocked
	}
	return f, nil
}
