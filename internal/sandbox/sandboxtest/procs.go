// Package sandboxtest holds what the sandbox tests and the end-to-end
// scripts share to check that no child process outlives its call.
package sandboxtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Marked lists the processes (other than this one) whose command line
// contains marker, read from /proc.
func Marked(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Started lists the processes whose argv[0] begins with marker: the
// commands a test started with `exec -a MARKER…`, not the shells or bwrap
// processes whose arguments merely mention it.
func Started(marker string) []int {
	var pids []int
	for _, pid := range Marked(marker) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err == nil && strings.HasPrefix(string(b), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}
