package codesearch

import "errors"

// mkfifo fails: Windows has no named pipes in the file system.
func mkfifo(string, uint32) error { return errors.New("no FIFOs in a Windows file system") }

// mknodNull fails: there are no device files in a Windows file system.
func mknodNull(string) error { return errors.New("no device files in a Windows file system") }
