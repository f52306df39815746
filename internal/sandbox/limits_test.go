//go:build linux

package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"
)

// The attacks of issue 11, item 5: a fork bomb and a 3 GiB allocation,
// under every backend. The per-call cgroup stops both and says which
// limit was hit; the sidecar (this test) stays responsive.
func TestLimitsStopAForkBombAndAHugeAllocation(t *testing.T) {
	needPython(t)
	lim := Limits{MaxProcs: 64, MaxMemoryBytes: 256 << 20}
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			s := openWith(t, name, Options{Limits: lim})
			if !s.launcher.cgroups.has(ctlPids) || !s.launcher.cgroups.has(ctlMemory) {
				t.Skipf("no writable pids and memory cgroups here: %s", s.Summary())
			}
			marker := uniqueMarker(t)
			start := time.Now()
			res := run(t, s, `bomb() { (exec -a `+marker+` sleep 30) & bomb & bomb; }; bomb`, RunOptions{Timeout: 2 * time.Second})
			if res.Limit != "processes" {
				t.Errorf("fork bomb: limit %q, want processes: %+v", res.Limit, res)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the fork bomb held the call for %v", d)
			}
			waitGone(t, marker)
			// bwrap reports its child's SIGKILL as exit code 137.
			res = run(t, s, `exec python3 -c 'b = bytearray(3 << 30); print(len(b))'`, RunOptions{})
			if res.Limit != "memory" || res.ExitCode != 137 || strings.Contains(res.Stdout, "3221225472") {
				t.Errorf("3 GiB allocation: %+v", res)
			}
			if res := run(t, s, `echo still here`, RunOptions{}); res.Stdout != "still here\n" || res.Limit != "" {
				t.Errorf("the next call: %+v", res)
			}
		})
	}
}

// Without a memory cgroup, RLIMIT_AS stands in (a fallback: it counts
// address space, not memory), and the summary says what enforces each
// limit — including that root is exempt from RLIMIT_NPROC.
func TestLimitFallbacksAreReported(t *testing.T) {
	needPython(t)
	s := openWith(t, "landlock", Options{noCgroups: true, Limits: Limits{MaxProcs: 64, MaxMemoryBytes: 256 << 20}})
	res := run(t, s, `exec python3 -c 'b = bytearray(3 << 30)'`, RunOptions{})
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "MemoryError") {
		t.Errorf("3 GiB allocation under RLIMIT_AS: %+v", res)
	}
	sum := s.Summary()
	if !strings.Contains(sum, "256 MB address space (RLIMIT_AS") {
		t.Errorf("summary: %s", sum)
	}
	want := "64 processes (RLIMIT_NPROC in the call's user namespace)"
	if os.Geteuid() == 0 {
		want = "processes not limited (root is exempt from RLIMIT_NPROC"
	}
	if !strings.Contains(sum, want) {
		t.Errorf("summary lacks %q: %s", want, sum)
	}
}
