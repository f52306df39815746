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
	"os"
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

// Settle returns once no child this process started before the call can
// still hold a descriptor it inherited: a file written without WriteFile
// (a testscript archive, extracted before the script's Setup runs) can
// then be run. On Linux a child starts with vfork semantics, and the fork
// holds syscall.ForkLock until the child has exec'd.
func Settle() {
	syscall.ForkLock.Lock()
	//lint:ignore SA2001 waiting for the lock is the point
	syscall.ForkLock.Unlock()
}
