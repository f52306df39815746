package launch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What each rlimit leaves behind, weighed: the kernel keeps no count of a
// refused fork or allocation, so only a stopped tree at the limit is
// certain; the rest is "possible", and only for a limit an rlimit
// enforces and a call that failed.
func TestInferLimit(t *testing.T) {
	lim := Limits{MaxProcs: 64, MaxMemoryBytes: 256 << 20}
	both := rlimitFallbacks{procs: true, memory: true}
	type want struct {
		Limit    string
		Certain  bool
		Evidence string
	}
	tests := []struct {
		name  string
		res   Result
		fb    rlimitFallbacks
		tasks int
		want  want
	}{
		{"stopped at the limit", Result{TimedOut: true, ExitCode: 143}, both, 64,
			want{"processes", true, "its tree held 64 tasks when it was stopped"}},
		{"stopped near the limit", Result{TimedOut: true, ExitCode: 143}, both, 60,
			want{"processes", false, "its tree held 60 tasks when it was stopped"}},
		{"stopped far from the limit", Result{TimedOut: true, ExitCode: 143}, both, 3, want{}},
		{"bash's fork retry", Result{ExitCode: 254, Stderr: "bash: fork: retry: Resource temporarily unavailable\n"}, both, -1,
			want{"processes", false, `it reported "Resource temporarily unavailable"`}},
		{"a python thread", Result{ExitCode: 1, Stderr: "RuntimeError: can't start new thread\n"}, both, -1,
			want{"processes", false, `it reported "can't start new thread"`}},
		{"go's thread", Result{ExitCode: 2, Stderr: "runtime: failed to create new OS thread (have 9 already; errno=11)\n"}, both, -1,
			want{"processes", false, `it reported "failed to create new OS thread"`}},
		{"python's MemoryError", Result{ExitCode: 1, Stderr: "Traceback...\nMemoryError\n"}, both, -1,
			want{"memory", false, `it reported "MemoryError"`}},
		{"C's ENOMEM", Result{ExitCode: 1, Stderr: "xz: Cannot allocate memory\n"}, both, -1,
			want{"memory", false, `it reported "Cannot allocate memory"`}},
		{"node's heap", Result{ExitCode: 134, Stderr: "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"}, both, -1,
			want{"memory", false, `it reported "out of memory"`}},
		{"a segfault", Result{ExitCode: 139, Signal: "SIGSEGV"}, both, -1, want{"memory", false, "it was killed by SIGSEGV"}},
		{"a segfault bwrap passed on", Result{ExitCode: 139}, both, -1,
			want{"memory", false, "it exited with code 139, a death by SIGSEGV passed on"}},
		{"an abort", Result{ExitCode: 134, Signal: "SIGABRT"}, both, -1, want{"memory", false, "it was killed by SIGABRT"}},
		{"an ordinary exit code", Result{ExitCode: 2}, both, -1, want{}},
		{"bash reports its child's segfault", Result{ExitCode: 139, Stderr: "bash: line 1:  7 Segmentation fault (core dumped) ./a.out\n"},
			both, -1, want{"memory", false, `it reported "Segmentation fault"`}},
		{"a success that handled it", Result{ExitCode: 0, Stderr: "MemoryError (retrying smaller)\n"}, both, -1, want{}},
		{"an ordinary failure", Result{ExitCode: 1, Stderr: "grep: x: No such file or directory\n"}, both, -1, want{}},
		{"memory words without RLIMIT_AS", Result{ExitCode: 1, Stderr: "MemoryError\n"}, rlimitFallbacks{procs: true}, -1, want{}},
		{"fork words without RLIMIT_NPROC", Result{ExitCode: 1, Stderr: "fork: Resource temporarily unavailable\n"},
			rlimitFallbacks{memory: true}, -1, want{}},
		{"a cgroup's verdict stands", Result{ExitCode: 137, Signal: "SIGKILL", Limit: "memory", LimitCertain: true}, both, 64,
			want{"memory", true, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.res
			inferLimit(&res, tt.fb, lim, tt.tasks, res.ExitCode != 0 || res.Signal != "" || res.TimedOut, res.Stderr)
			if diff := cmp.Diff(tt.want, want{res.Limit, res.LimitCertain, res.LimitEvidence}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
