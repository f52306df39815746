//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/exectest"
	"steerable.dev/sidecar/internal/sandbox/launch"
	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// Escape A (SPEC §4.2): a root sidecar's command must not write kernel
// settings through bwrap's fresh /proc (core_pattern pointing at a workspace script
// is code execution as root outside the sandbox). Writing
// vm.overcommit_ratio with its own value must fail under every confining
// backend, and the command must not be uid 0 under bwrap nor able to set
// the hostname.
func TestKernelKnobsAreReadOnly(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			res := run(t, s, `v=$(cat /proc/sys/vm/overcommit_ratio) && echo "$v" > /proc/sys/vm/overcommit_ratio && echo WROTE`, RunOptions{})
			if res.ExitCode == 0 || strings.Contains(res.Stdout, "WROTE") {
				t.Errorf("/proc/sys/vm/overcommit_ratio was written: %+v", res)
			}
			if res := run(t, s, `echo x > /proc/sysrq-trigger`, RunOptions{}); res.ExitCode == 0 {
				t.Errorf("/proc/sysrq-trigger was written")
			}
			if name != "bwrap" {
				return
			}
			res = run(t, s, `id -u; hostname steerable-escape`, RunOptions{})
			if strings.HasPrefix(res.Stdout, "0\n") || res.ExitCode == 0 {
				t.Errorf("bwrap: uid 0 or the hostname was set: %+v", res)
			}
		})
	}
}

// exactly hides a backend's other modes from the selection (tests that
// need one mode).
type exactly struct{ Backend }

// Escape B (SPEC §4.2): with the binary in the workspace, a call may
// replace it with a script; the next landlock call must not run unconfined. The re-exec
// mode starts the helper from the descriptor taken at boot, so replacing
// the file changes nothing.
func TestReexecUsesTheBootDescriptor(t *testing.T) {
	ll := NewLandlock(Self{})
	if ll.Available() != nil {
		t.Skip("the kernel has no Landlock")
	}
	ws := sandboxtest.RealTempDir(t)
	copyPath := filepath.Join(ws, "sidecar-copy")
	copyFile(t, mustExecutable(t), copyPath)
	f, err := os.Open(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	ll.Self, ll.exec = Self{File: f, Argv0: "sandbox.test"}, true
	s := openWith(t, "landlock", Options{Workspace: ws, Backends: []Backend{exactly{ll}}})
	t.Cleanup(func() { f.Close() })
	// The attack: replace the binary (rename over it, as an editor would).
	script := `printf '#!/bin/sh\nwhile [ "$1" != -- ]; do shift; done; shift 2; exec "$@"\n' > new && chmod +x new && mv new sidecar-copy`
	if res := run(t, s, script, RunOptions{}); res.ExitCode != 0 {
		t.Fatalf("could not replace the copy: %+v", res)
	}
	res := run(t, s, `grep NoNewPrivs /proc/self/status; echo pwned > /etc/steerable-escape-b`, RunOptions{})
	os.Remove("/etc/steerable-escape-b")
	if !strings.Contains(res.Stdout, "NoNewPrivs:\t1") || res.ExitCode == 0 {
		t.Errorf("the second call ran unconfined: %+v", res)
	}
}

// The thread-scoped mode confines only the starting thread: once a call
// is done, every thread of the sidecar still writes anywhere and runs
// without no_new_privs or a seccomp filter.
func TestThreadScopedLandlockLeavesTheSidecarFree(t *testing.T) {
	s := openSandbox(t, "landlock", false)
	outside := filepath.Join(sandboxtest.RealTempDir(t), "after-call")
	for range 5 {
		if res := run(t, s, `echo pwned > "`+outside+`"`, RunOptions{}); res.ExitCode == 0 {
			t.Fatal("the command wrote outside")
		}
	}
	done := make(chan error, 8)
	for range 8 { // on whatever threads the scheduler picks
		go func() { done <- os.WriteFile(outside, []byte("sidecar"), 0o644) }()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Errorf("the sidecar cannot write outside after a call: %v", err)
		}
	}
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			continue // the thread ended meanwhile
		}
		if st := string(b); !strings.Contains(st, "NoNewPrivs:\t0") || !strings.Contains(st, "Seccomp:\t0") {
			t.Errorf("%s is still restricted:\n%s", task, st)
		}
	}
}

// The thread mode needs the stop at exec to map a user namespace (its
// thread cannot write /proc); without it the selection falls back to the
// re-exec helper and says so.
func TestLandlockFallsBackToTheReexecHelper(t *testing.T) {
	if NewLandlock(Self{}).Available() != nil {
		t.Skip("the kernel has no Landlock")
	}
	s := openWith(t, "landlock", Options{Self: self(t), launch: launch.Setup{Modes: []launch.Mode{{PIDNS: true, UserNS: true}}}})
	sum := s.Summary()
	for _, want := range []string{"mode re-exec helper", "landlock (thread-scoped): "} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q: %s", want, sum)
		}
	}
	if res := run(t, s, `echo pwned > /etc/steerable-fallback; grep NoNewPrivs /proc/self/status`, RunOptions{}); res.ExitCode != 0 ||
		!strings.Contains(res.Stdout, "NoNewPrivs:\t1") {
		t.Errorf("the re-exec helper did not confine: %+v", res)
	}
	os.Remove("/etc/steerable-fallback")
}

// A backend named in STEERABLE_SANDBOX that does not work refuses every
// command; it never runs one unconfined (SPEC §4.2).
func TestNamedBackendFailsClosed(t *testing.T) {
	s, err := Open(context.Background(), Options{Choice: "bwrap", Workspace: sandboxtest.RealTempDir(t), TempParent: sandboxtest.RealTempDir(t),
		Backends: []Backend{NewBwrap("/nonexistent/bwrap")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Unavailable() {
		t.Fatalf("a missing named backend is not unavailable: %s", s.Summary())
	}
	if _, err := s.Run(context.Background(), Command{Argv: []string{"true"}, Dir: "/"}, RunOptions{MaxOutput: 64}); err != ErrUnavailable {
		t.Errorf("Run = %v, want ErrUnavailable", err)
	}
	if !strings.Contains(s.Summary(), "STEERABLE_BWRAP_PATH=/nonexistent/bwrap") {
		t.Errorf("the summary does not name the fix: %s", s.Summary())
	}
}

func TestBwrapIsTakenFromTrustedPlacesOnly(t *testing.T) {
	t.Setenv("PATH", sandboxtest.RealTempDir(t)) // a PATH without bwrap changes nothing
	b := NewBwrap("")
	if _, err := os.Stat("/usr/bin/bwrap"); err == nil && b.Path != "/usr/bin/bwrap" {
		t.Errorf("bwrap = %q, want /usr/bin/bwrap", b.Path)
	}
	for _, bad := range []string{"bwrap", "./bwrap", "/nonexistent", "/etc/passwd", "/usr/bin"} {
		if err := NewBwrap(bad).Available(); err == nil || !strings.Contains(err.Error(), "STEERABLE_BWRAP_PATH") {
			t.Errorf("NewBwrap(%q) = %v", bad, err)
		}
	}
}

func mustExecutable(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func copyFile(t *testing.T, from, to string) {
	if err := exectest.CopyFile(from, to, 0o755); err != nil {
		t.Fatal(err)
	}
}
