//go:build unix

package codesearch

import "syscall"

// mkfifo makes a named pipe, for the tests of special-file refusals.
func mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

// mknodNull makes a character device with /dev/null's numbers (root only).
func mknodNull(path string) error { return syscall.Mknod(path, syscall.S_IFCHR|0o644, int(1<<8|3)) }
