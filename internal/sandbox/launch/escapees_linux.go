package launch

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The subreaper fallback (LifetimeSubreaper), for kernels where the
// launcher can create no PID namespace and no cgroup: the sidecar is a
// child subreaper, so a process that leaves its call's group (setsid, a
// double fork) reparents to the sidecar instead of init. Each child's
// environment carries EscapeeMarker=<owner>.<call>; when the call ends, the
// sidecar's children that carry the call's marker and are not a live call
// are killed and reaped. A process that rewrites its environment before
// escaping is not recognised; a SIGKILLed sidecar leaves escapees running
// (only a PID namespace covers that).

// killEscapees kills and reaps the sidecar's children whose marker
// satisfies match, repeating while killing one uncovers more (its own
// orphans reparent to the sidecar in turn).
func killEscapees(match func(marker string) bool, live map[int]bool) {
	for range 50 {
		found := false
		for _, pid := range selfChildren() {
			if live[pid] || !match(markerOf(pid)) {
				continue
			}
			found = true
			syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
		if !found {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// selfChildren lists the children of every thread of this process.
func selfChildren() []int {
	var pids []int
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// markerOf is the value of EscapeeMarker in pid's environment, "" if none.
func markerOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	prefix := []byte(EscapeeMarker + "=")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return string(v)
		}
	}
	return ""
}
