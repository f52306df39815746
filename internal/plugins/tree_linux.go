package plugins

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// proc is a process identified beyond its pid: the start time tells a
// process from a later one that reused its pid.
type proc struct {
	pid   int
	start string
}

// descendants returns every process below pid, from /proc, while pid is
// alive. The sandbox of this build kills a plugin's process group; a
// server's child that made a session of its own (setsid, a daemon) has left
// that group, so the launcher kills what it finds here as well.
func descendants(pid int) []proc {
	children := map[int][]proc{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, start, ok := statOf(n); ok {
			children[ppid] = append(children[ppid], proc{n, start})
		}
	}
	var out []proc
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// statOf reads a process's parent pid and start time (fields 4 and 22 of
// /proc/PID/stat; the command name before them may hold spaces).
func statOf(pid int) (ppid int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[19], err == nil
}

// killAll SIGKILLs each process that is still the one found, and its group.
func killAll(ps []proc) {
	for _, p := range ps {
		if _, start, ok := statOf(p.pid); ok && start == p.start {
			_ = syscall.Kill(-p.pid, syscall.SIGKILL) // ESRCH unless it leads a group
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}
