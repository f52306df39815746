package sandbox

import (
	"os"
	"runtime"
	"strconv"
)

// Self is the running binary, for Landlock's re-exec mode: a descriptor
// opened at boot and the argv[0] the helper runs under. The helper is
// started through the descriptor (/proc/self/fd/N), never a path, so a
// command that replaces the binary on disk — it may sit in the workspace —
// cannot unconfine a later call: the descriptor keeps the inode that was
// running at boot.
type Self struct {
	File  *os.File
	Argv0 string
}

// OpenSelf opens the running executable: /proc/self/exe on Linux (the
// inode this process runs, even if its path was replaced before boot),
// os.Executable elsewhere. Without either, Self has no File and the
// re-exec mode is unavailable.
func OpenSelf(argv0 string) Self {
	path := "/proc/self/exe"
	if runtime.GOOS != "linux" {
		var err error
		if path, err = os.Executable(); err != nil {
			return Self{Argv0: argv0}
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return Self{Argv0: argv0}
	}
	return Self{File: f, Argv0: argv0}
}

// path names the descriptor in the child, which inherits it until execve
// (close-on-exec closes it only after the kernel opened the binary).
func (s Self) path() string {
	dir := "/proc/self/fd/"
	if runtime.GOOS != "linux" {
		dir = "/dev/fd/"
	}
	return dir + strconv.Itoa(int(s.File.Fd()))
}
