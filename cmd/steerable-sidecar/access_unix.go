//go:build unix

package main

import "syscall"

// writableDir checks that this process may create entries in the
// directory d (access(2) W_OK|X_OK).
func writableDir(d string) error { return syscall.Access(d, 2|1) }
