package launch

import (
	"fmt"
	"strings"
)

// Which limit stopped a command. A cgroup counts what it refused (a fork
// over pids.max, an OOM kill): Exit.Limit, certain. The rlimits that stand
// in without a cgroup count nothing: RLIMIT_NPROC makes fork and clone
// fail with EAGAIN, RLIMIT_AS makes mmap and brk fail with ENOMEM, and the
// kernel keeps no record of either. What is left is evidence, weighed in
// this order:
//
//   - a call that ran into its timeout (or was cancelled) while its tree
//     held MaxProcs tasks was stopped at the process limit: certain, since
//     a fork fails only there;
//   - a failed call whose tree held nine tenths of MaxProcs then, or whose
//     stderr carries a failed fork or thread start (EAGAIN in any
//     language's words), possibly hit the process limit;
//   - a failed call whose stderr carries a failed allocation, or that died
//     of SIGSEGV, SIGBUS or SIGABRT (what an unchecked malloc or a stack
//     that cannot grow leads to; bwrap passes such a death on as exit code
//     128+N), possibly hit the memory limit.
//
// Only a limit that an rlimit enforces in this session is ever inferred,
// and only for a call that failed: a command that printed "MemoryError"
// and exited 0 handled it.

// rlimitFallbacks says which limits of a call rlimits enforce, in place of
// a cgroup controller.
type rlimitFallbacks struct {
	procs  bool // RLIMIT_NPROC in the call's user namespace
	memory bool // RLIMIT_AS
}

// procsEvidence are stderr fragments of a refused fork or thread start,
// lower-cased: bash and C (strerror(EAGAIN)), Python threads, Go, the
// JVM, Node.
var procsEvidence = []string{"resource temporarily unavailable", "can't start new thread", "failed to create new os thread",
	"unable to create native thread", "unable to create new native thread", "spawn eagain"}

// memoryEvidence are stderr fragments of a refused allocation: Python,
// strerror(ENOMEM), C++, Go, Node, the JVM, Rust, glibc and reservation
// failures of runtimes that map their heap up front.
var memoryEvidence = []string{"memoryerror", "cannot allocate memory", "std::bad_alloc", "out of memory", "outofmemoryerror",
	"memory allocation of", "failed to reserve", "cannot reserve", "could not reserve", "insufficient memory",
	"allocation failed", "segmentation fault", "aborted", "bus error"}

// crashSignals are how a process ends when an allocation it did not check
// failed, or its stack could not grow, by the exit code (128+N) of a
// parent that passes such a death on.
var crashSignals = map[int]string{139: "SIGSEGV", 135: "SIGBUS", 134: "SIGABRT"}

// InferLimit is Run's inference for a failure that the caller learnt of
// another way: run_code's program reports its exception over the bridge
// and exits 0, so failure is its error and traceback. A call whose Limit
// is set already keeps it.
func (l *Launcher) InferLimit(res *Result, lim Limits, failure string) {
	inferLimit(res, l.rlimitFallbacks(lim), lim, -1, true, failure)
}

// inferLimit fills res.Limit, res.LimitCertain and res.LimitEvidence for
// a call that the kernel's counters say nothing about, from whether it
// failed and what it said (its stderr); tasksAtStop is how many tasks the
// call's tree held when a timeout or cancellation stopped it (-1: it was
// not stopped, or they could not be counted).
func inferLimit(res *Result, fb rlimitFallbacks, lim Limits, tasksAtStop int, failed bool, text string) {
	if res.Limit != "" || !failed {
		return
	}
	if fb.procs && lim.MaxProcs > 0 {
		switch {
		case tasksAtStop >= lim.MaxProcs:
			res.Limit, res.LimitCertain = "processes", true
			res.LimitEvidence = fmt.Sprintf("its tree held %d tasks when it was stopped", tasksAtStop)
			return
		case tasksAtStop >= lim.MaxProcs*9/10:
			res.Limit, res.LimitEvidence = "processes", fmt.Sprintf("its tree held %d tasks when it was stopped", tasksAtStop)
			return
		}
		if frag := firstIn(text, procsEvidence); frag != "" {
			res.Limit, res.LimitEvidence = "processes", fmt.Sprintf("it reported %q", frag)
			return
		}
	}
	if fb.memory && lim.MaxMemoryBytes > 0 {
		if frag := firstIn(text, memoryEvidence); frag != "" {
			res.Limit, res.LimitEvidence = "memory", fmt.Sprintf("it reported %q", frag)
			return
		}
		for code, sig := range crashSignals {
			switch {
			case res.Signal == sig:
				res.Limit, res.LimitEvidence = "memory", "it was killed by "+sig
				return
			case res.Signal == "" && res.ExitCode == code: // bwrap, or a shell, passing on its child's death
				res.Limit, res.LimitEvidence = "memory", fmt.Sprintf("it exited with code %d, a death by %s passed on", code, sig)
				return
			}
		}
	}
}

// firstIn returns the first of frags (lower case) found in text, as text
// spells it ("" if none).
func firstIn(text string, frags []string) string {
	lower := strings.ToLower(text)
	for _, f := range frags {
		if i := strings.Index(lower, f); i >= 0 {
			if len(lower) == len(text) {
				return text[i : i+len(f)]
			}
			return f
		}
	}
	return ""
}
