//go:build unix

package files

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// acquireTxnLock flocks the manifest itself, which stays open (and so
// locked) until the transaction ends; a dead process's lock is gone with
// it.
func acquireTxnLock(manifest *os.File, _, _ string) (*txnLock, error) {
	if err := syscall.Flock(int(manifest.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil, err
	}
	return &txnLock{f: manifest}, nil
}

// tryTxnLock reports whether another process holds the lock of the
// transaction in dir (its commit is still running); otherwise it returns
// the lock, now held, or nil when the transaction has no manifest.
func tryTxnLock(dir, _ string) (live bool, _ *txnLock) {
	f, err := os.Open(filepath.Join(dir, manifestName))
	if err != nil {
		return false, nil
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return errors.Is(err, syscall.EWOULDBLOCK), nil
	}
	return false, &txnLock{f: f}
}
