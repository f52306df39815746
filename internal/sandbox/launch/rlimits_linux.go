package launch

import (
	"bytes"
	"os"
	"strconv"
)

// rlimitFallbacks says which of lim's limits an rlimit enforces for the
// session's calls: those no cgroup controller holds. RLIMIT_NPROC counts
// the tasks of a uid in a user namespace, so it bounds one call only when
// the call has a user namespace of its own, and never binds root (the
// kernel exempts uid 0); RLIMIT_AS binds everyone.
func (l *Launcher) rlimitFallbacks(lim Limits) rlimitFallbacks {
	return rlimitFallbacks{
		procs:  lim.MaxProcs > 0 && !l.cgroups.has(CtlPids) && l.mode.UserNS && os.Geteuid() != 0,
		memory: lim.MaxMemoryBytes > 0 && !l.cgroups.has(CtlMemory),
	}
}

// treeTasks counts the tasks (threads included, as RLIMIT_NPROC counts
// them) of pid and every process below it, from /proc: the processes of
// a call's PID namespace, nested ones (bwrap's) included, since an orphan
// there is adopted by a namespace's init, never by a process outside.
// -1 when /proc cannot be read.
func treeTasks(pid int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	type proc struct{ ppid, threads int }
	procs := map[int]proc{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, threads, ok := statOf(n); ok {
			procs[n] = proc{ppid, threads}
		}
	}
	total := 0
	for n, p := range procs {
		for cur, hops := n, 0; cur > 0 && hops < len(procs); hops++ {
			if cur == pid {
				total += max(p.threads, 1)
				break
			}
			cur = procs[cur].ppid
		}
	}
	return total
}

// statOf reads the parent and the thread count of pid from
// /proc/PID/stat (fields 4 and 20, after the command name in parentheses,
// which may itself hold spaces and parentheses).
func statOf(pid int) (ppid, threads int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 18 {
		return 0, 0, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	threads, err2 := strconv.Atoi(string(f[17]))
	return ppid, threads, err1 == nil && err2 == nil
}
