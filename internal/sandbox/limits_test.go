//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/exectest"
	"steerable.dev/sidecar/internal/sandbox/launch"
	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// Two resource attacks (SPEC §4.2): a fork bomb and a 3 GiB allocation,
// under every backend. The per-call cgroup stops both and says which
// limit was hit; the sidecar (this test) stays responsive.
func TestLimitsStopAForkBombAndAHugeAllocation(t *testing.T) {
	needPython(t)
	lim := Limits{MaxProcs: 64, MaxMemoryBytes: 256 << 20}
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			s := openWith(t, name, Options{Limits: lim})
			if !s.launcher.HasCgroup(launch.CtlPids) || !s.launcher.HasCgroup(launch.CtlMemory) {
				t.Skipf("no writable pids and memory cgroups here: %s", s.Summary())
			}
			// The call ends itself once bash reports its first refused fork
			// (read and the loop are builtins: no fork of their own), so
			// however loaded the machine, the limit is met before the
			// call's end; the timeout only guards against a hang.
			marker := uniqueMarker(t)
			res := run(t, s, `bomb() { (exec -a `+marker+` sleep 30) & bomb & bomb; }
bomb >/dev/null 2>bomb.err &
until read -r refused <bomb.err; do :; done
echo "$refused"`, RunOptions{Timeout: time.Minute})
			if res.Limit != "processes" || res.TimedOut || !strings.Contains(res.Stdout, "fork") {
				t.Errorf("fork bomb: limit %q, want processes: %+v", res.Limit, res)
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
// address space, not memory) under every backend; the allocation that it
// refuses is reported as a possible hit of the memory limit, and the
// summary says what enforces each limit — including that root is exempt
// from RLIMIT_NPROC. (An unprivileged sidecar's fork bomb under
// RLIMIT_NPROC: TestUnprivilegedSidecar.)
func TestLimitFallbacksAreReported(t *testing.T) {
	needPython(t)
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			s := openWith(t, name, Options{launch: launch.Setup{NoCgroups: true}, Limits: Limits{MaxProcs: 64, MaxMemoryBytes: 256 << 20}})
			res := run(t, s, `exec python3 -c 'b = bytearray(3 << 30)'`, RunOptions{})
			if res.ExitCode == 0 || !strings.Contains(res.Stderr, "MemoryError") {
				t.Errorf("3 GiB allocation under RLIMIT_AS: %+v", res)
			}
			if res.Limit != "memory" || res.LimitCertain || res.LimitEvidence != `it reported "MemoryError"` {
				t.Errorf("the refused allocation is not reported as a possible memory limit: %+v", res)
			}
			if res := run(t, s, `echo MemoryError >&2; exit 3`, RunOptions{}); res.Limit != "memory" {
				t.Errorf("a failure that says so: %+v", res) // possible, by its words: the kernel keeps no count
			}
			if res := run(t, s, `python3 -c 'b = bytearray(1 << 20)'; echo fine`, RunOptions{}); res.Limit != "" || res.ExitCode != 0 {
				t.Errorf("a call within the limits: %+v", res)
			}
			sum := s.Summary()
			if !strings.Contains(sum, "256 MB address space (RLIMIT_AS") {
				t.Errorf("summary: %s", sum)
			}
			want, unenforced := "64 processes (RLIMIT_NPROC in the call's user namespace)", []string(nil)
			if os.Geteuid() == 0 {
				want, unenforced = "processes not limited (root is exempt from RLIMIT_NPROC", []string{"processes"}
			}
			if !strings.Contains(sum, want) {
				t.Errorf("summary lacks %q: %s", want, sum)
			}
			if diff := cmp.Diff(unenforced, s.Unenforced()); diff != "" {
				t.Errorf("Unenforced (-want +got):\n%s", diff)
			}
		})
	}
}

// The attack on bwrap's private /tmp: without a memory cgroup no rlimit
// counts a tmpfs's pages, so a command could fill the machine's memory
// there. It is a tmpfs of Limits.TmpBytes: writing beyond fails with
// ENOSPC, and the summary says so.
func TestBwrapTmpIsCapped(t *testing.T) {
	s := openWith(t, "bwrap", Options{launch: launch.Setup{NoCgroups: true}, Limits: Limits{TmpBytes: 8 << 20}})
	res := run(t, s, `df -k /tmp | tail -1; head -c 16M /dev/zero > /tmp/fill; echo "rc=$?"; du -k /tmp/fill`, RunOptions{})
	if !strings.Contains(res.Stdout, " 8192 ") || !strings.Contains(res.Stdout, "rc=1\n8192\t") ||
		!strings.Contains(res.Stderr, "No space left on device") {
		t.Errorf("a 16 MB write into an 8 MB /tmp: %+v", res)
	}
	if sum := s.Summary(); !strings.Contains(sum, "/tmp a 8 MB tmpfs (STEERABLE_SANDBOX_TMP_MB)") {
		t.Errorf("summary: %s", sum)
	}
}

// A bwrap older than 0.8.0 has no --size and would refuse every command
// given it: its /tmp stays uncapped, and the summary says why.
func TestBwrapWithoutSizeLeavesTmpUncapped(t *testing.T) {
	real := backendFor(t, "bwrap").(Bwrap).Path
	old := filepath.Join(sandboxtest.RealTempDir(t), "bwrap-0.7")
	script := "#!/bin/sh\n" +
		"case \" $* \" in *\" --size \"*) echo 'bwrap: Unknown option --size' >&2; exit 1;; esac\n" +
		"[ \"$1\" = --help ] && { " + real + " --help | grep -v -e --size; exit 0; }\n" +
		"exec " + real + " \"$@\"\n"
	if err := exectest.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := openWith(t, "bwrap", Options{Backends: []Backend{NewBwrap(old)}, Limits: Limits{TmpBytes: 8 << 20}})
	if res := run(t, s, `df -k /tmp | tail -1`, RunOptions{}); res.ExitCode != 0 || strings.Contains(res.Stdout, " 8192 ") {
		t.Errorf("/tmp under the old bwrap: %+v", res)
	}
	if sum := s.Summary(); !strings.Contains(sum, "/tmp a tmpfs not capped: this bwrap has no --size") {
		t.Errorf("summary: %s", sum)
	}
}
