//go:build unix

package tools

import "syscall"

// mkfifo makes a named pipe, for the tests of special-file refusals.
func mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }
