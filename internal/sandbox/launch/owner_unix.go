//go:build unix

package launch

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// selfIdentity is this process's PID namespace inode (0 where there is
// none), pid and start time (0 where unknown).
func selfIdentity() (ns uint64, pid int, start uint64) {
	pid = os.Getpid()
	if link, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		ns, _ = strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "pid:["), "]"), 10, 64)
	}
	start, _ = processStart(pid)
	return ns, pid, start
}

// processStart is pid's start time from /proc/PID/stat (field 22), and
// whether the process exists. Without /proc, existence comes from kill(0)
// and the start time is 0.
func processStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if _, statErr := os.Stat("/proc/self/stat"); statErr != nil { // no procfs
			return 0, !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
		}
		return 0, false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s) // f[0] is field 3 (state)
	if len(f) < 20 {
		return 0, true
	}
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return start, true
}

// ownedByMe reports whether path belongs to this process's effective uid
// (the sidecar never removes another user's leftovers).
func ownedByMe(info os.FileInfo) bool {
	uid, ok := FileOwner(info)
	return ok && uid == os.Geteuid()
}

// FileOwner is the uid that owns the file of info (the sandbox checks a
// trusted program's owner with it too).
func FileOwner(info os.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
