package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// On Windows the lock is a file of its own beside the transaction
// directory, <id>.lock: a directory cannot be renamed (the .tmp → live →
// .done steps) while a file in it is open. LockFileEx's lock, like flock's,
// dies with the process that holds it.

// acquireTxnLock creates and locks the transaction's lock file.
func acquireTxnLock(_ *os.File, journal, id string) (*txnLock, error) {
	path := filepath.Join(journal, id+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return &txnLock{f: f, path: path}, nil
}

// tryTxnLock reports whether another process holds the lock of the
// transaction in dir; otherwise it returns the lock, now held, or nil when
// there is no lock file (the process that wrote it is gone and released
// it, or never got that far).
func tryTxnLock(dir, journal string) (live bool, _ *txnLock) {
	path := filepath.Join(journal, txnID(dir)+".lock")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false, nil
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return errors.Is(err, windows.ERROR_LOCK_VIOLATION), nil
	}
	return false, &txnLock{f: f, path: path}
}

// lockFile takes an exclusive lock on f's first byte without waiting.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}

// txnID is the id of a transaction directory, whatever its state suffix.
func txnID(dir string) string {
	name := filepath.Base(dir)
	name = strings.TrimSuffix(name, buildSuffix)
	return strings.TrimSuffix(name, doneSuffix)
}
