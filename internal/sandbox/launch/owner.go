package launch

import (
	"fmt"
	"strconv"
	"strings"
)

// An owner tag names the sidecar process that created a resource left on
// the system (a session temp dir, a cgroup), so the next start can tell a
// leftover of a dead sidecar from a live sidecar's: "<pidns>.<pid>.<start>",
// the PID namespace's inode, the pid in it and the process's start time
// (clock ticks since boot), which together survive pid reuse. Many
// sidecars run at once (tests, a desktop with several agents): a resource
// is removed only when its owner is provably gone.

// ownerTag is this process's tag.
func ownerTag() string {
	ns, pid, start := selfIdentity()
	return fmt.Sprintf("%d.%d.%d", ns, pid, start)
}

// parseOwnerTag splits a tag; ok is false for anything else.
func parseOwnerTag(tag string) (ns uint64, pid int, start uint64, ok bool) {
	f := strings.Split(tag, ".")
	if len(f) != 3 {
		return 0, 0, 0, false
	}
	ns, err1 := strconv.ParseUint(f[0], 10, 64)
	p, err2 := strconv.Atoi(f[1])
	start, err3 := strconv.ParseUint(f[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || p <= 0 {
		return 0, 0, 0, false
	}
	return ns, p, start, true
}

// ownerGone reports whether the owner of tag is provably gone: the tag
// parses, names this PID namespace, and no process with its pid and start
// time exists. A tag of another namespace (a sidecar in a container
// sharing the directory) or one that does not parse is never gone.
func ownerGone(tag string) bool {
	ns, pid, start, ok := parseOwnerTag(tag)
	myNS, myPid, _ := selfIdentity()
	if !ok || ns != myNS || pid == myPid {
		return false
	}
	got, alive := processStart(pid)
	return !alive || got != start
}
