//go:build unix

package checkpoint

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir holds the store's lock file for the life of the process: one
// sidecar appends to a workspace's log at a time.
func lockDir(dir string) (io.Closer, error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}
