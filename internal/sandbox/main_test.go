package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// TestMain lets the test binary play other roles, the way the sidecar
// binary does: the Landlock helper (HelperCommand, reached by
// re-execution), a "sidecar" that starts a confined child and is then
// SIGKILLed by a test (spawnParent), and an unprivileged sidecar
// (nonrootCheck).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case HelperCommand:
			os.Exit(ExecMain(os.Args[2:], os.Stderr))
		case "spawn-parent":
			os.Exit(spawnParent(os.Args[2], os.Args[3], os.Args[4]))
		case WatchdogCommand:
			os.Exit(WatchdogMain(os.Stdin))
		case "nonroot-check":
			os.Exit(nonrootCheck(os.Args[2], os.Args[3]))
		case "nonroot-cgroup-check":
			os.Exit(nonrootCgroupCheck(os.Args[2], os.Args[3], os.Args[4]))
		}
	}
	goleak.VerifyTestMain(m)
}

// self is how the Landlock backend re-executes this test binary.
func self(t testing.TB) Self {
	s := OpenSelf("sandbox.test")
	if s.File == nil {
		t.Fatal("cannot open the test binary")
	}
	t.Cleanup(func() { s.File.Close() })
	return s
}

// backendFor returns the named backend, skipping the test only when its
// capability is truly absent here.
func backendFor(t *testing.T, name string) Backend {
	t.Helper()
	var b Backend
	switch name {
	case "bwrap":
		b = NewBwrap("")
	case "landlock":
		b = NewLandlock(self(t))
	case "none":
		b = None{}
	default:
		t.Fatalf("unknown backend %q", name)
	}
	if err := b.Available(); err != nil {
		t.Skipf("%s is not available on this machine: %v", name, err)
	}
	return b
}

// openSandbox opens a sandbox with exactly the named backend, failing (not
// skipping) when its probe does not pass.
func openSandbox(t *testing.T, name string, network bool, environ ...string) *Sandbox {
	t.Helper()
	return openWith(t, name, Options{Network: network, Environ: environ})
}

// openWith opens a sandbox with exactly the named backend and opts, filling
// in the workspace, temp parent and a PATH and HOME when opts has none.
func openWith(t *testing.T, name string, opts Options) *Sandbox {
	t.Helper()
	opts.Choice = name
	if opts.Backends == nil {
		opts.Backends = []Backend{backendFor(t, name)}
	}
	if opts.Workspace == "" {
		opts.Workspace = sandboxtest.RealTempDir(t)
	}
	if opts.TempParent == "" {
		opts.TempParent = sandboxtest.RealTempDir(t)
	}
	opts.Environ = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, opts.Environ...)
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Info().Backend != name {
		t.Fatalf("backend %s did not pass its probe: %s", name, s.Summary())
	}
	return s
}

// run runs a bash script under s in the workspace and returns the result.
func run(t *testing.T, s *Sandbox, script string, opts RunOptions) Result {
	t.Helper()
	if opts.MaxOutput == 0 {
		opts.MaxOutput = 1 << 20
	}
	if opts.Timeout == 0 {
		opts.Timeout = 20 * time.Second
	}
	res, err := s.Run(context.Background(), Command{Argv: []string{"bash", "-c", script}, Dir: s.Policy().WritableRoots[0]}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// waitGone waits up to 5 s for every process carrying marker to be gone.
func waitGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := sandboxtest.Marked(marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range pids {
				exec.Command("kill", "-9", strconv.Itoa(p)).Run()
			}
			t.Fatalf("processes %v with marker %q outlived their parent", pids, marker)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func uniqueMarker(t *testing.T) string {
	return fmt.Sprintf("steerable-marker-%d-%d", os.Getpid(), time.Now().UnixNano())
}
