package launch

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// selfIdentity is this process's pid and creation time; Windows has no PID
// namespaces (ns 0).
func selfIdentity() (ns uint64, pid int, start uint64) {
	pid = os.Getpid()
	start, _ = processStart(pid)
	return 0, pid, start
}

// processStart is pid's creation time (100 ns units since 1601) and
// whether it is still running.
func processStart(pid int) (uint64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, !errors.Is(err, windows.ERROR_INVALID_PARAMETER) // access denied: it exists
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) == nil && code != stillActive {
		return 0, false
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, true
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), true
}

// stillActive is GetExitCodeProcess's code of a running process
// (STILL_ACTIVE); OpenProcess fails with ERROR_INVALID_PARAMETER for a pid
// no process has.
const stillActive = 259

// ownedByMe is true: the session temp dirs live in the user's own temp
// directory (%TEMP%), and its ACL already keeps other users' out.
func ownedByMe(os.FileInfo) bool { return true }

// FileOwner: a Windows file has an owner SID, not a uid; trusted.go checks
// only where a program lies there.
func FileOwner(os.FileInfo) (int, bool) { return 0, false }
