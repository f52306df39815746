// Package exectest writes the executables tests run while other tests of
// the same process are starting children.
//
// A child forked while a file is open for writing inherits that descriptor
// until it execs; exec of the file in that window fails with ETXTBSY ("text
// file busy"). Go's fork holds syscall.ForkLock for writing, so writing the
// file under the read lock keeps every fork of this process out of the
// window by construction, where a retry would only make it less likely.
package exectest

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile is os.WriteFile for a file a test will exec.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(name, data, perm)
}

// CopyFile copies the executable from into to, created with mode perm
// (truncated when it exists).
func CopyFile(from, to string, perm os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// Renew gives every regular file under root a new inode with the same
// content and mode, written as WriteFile writes: files written without it
// (a testscript archive, extracted before the script's Setup runs) can
// then be run. A child forked meanwhile may hold the old inode open for a
// moment longer, since the kernel wakes a vfork parent before it closes
// the child's close-on-exec descriptors; the new inode was never open
// outside the lock.
func Renew(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		tmp := p + ".renew"
		if err := WriteFile(tmp, data, info.Mode().Perm()); err != nil {
			return err
		}
		return os.Rename(tmp, p)
	})
}
