//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
)

// pollable returns f reopened in non-blocking mode when it is a pipe or a
// socket, so Go reads and writes it through the netpoller. A blocking stdin
// parks an OS thread in read(2) and every frame then pays the scheduler's
// hand-off. A terminal
// is left alone: its open file description is shared with the shell, which
// must not inherit non-blocking mode when the sidecar exits.
func pollable(f *os.File) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f
	}
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// input is stdin as the server reads it: pollable, so closing it at
// shutdown ends a pending read at once.
func input(f *os.File) io.Reader { return pollable(f) }
