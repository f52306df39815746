package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak RSS of a process that has exited, in bytes.
func maxRSS(ps *os.ProcessState) int64 { return ps.SysUsage().(*syscall.Rusage).Maxrss << 10 }
