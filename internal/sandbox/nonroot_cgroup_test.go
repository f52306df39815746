//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// An unprivileged sidecar in a cgroup delegated to its user gets per-call
// cgroups there, so its limits hold and every hit is counted by the
// kernel: the fork bomb and the 3 GiB allocation are reported as certain.
// Three placements, each prepared by this (root) test for uid 65534 the
// way a delegating systemd would: a cgroup v1 pair owned by the user; a
// cgroup v2 of its own (Delegate=yes), which the sidecar splits by moving
// itself into a leaf; and a cgroup v2 scope it shares with another
// process inside a user manager's tree (user@65534.service/app.slice),
// where its session goes beside it in app.slice. The v2 placements need a
// unified hierarchy with the memory and pids controllers.
func TestUnprivilegedSidecarInADelegatedCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root, to delegate a cgroup to uid 65534 and play that sidecar")
	}
	bin, work := nonrootBinary(t)
	placements := []struct {
		name  string
		setup func(t *testing.T) (move func(pid int) error)
		want  string // in the summary's limits
	}{
		{"cgroup v1", delegateV1, "32 processes (cgroup v1 pids), 256 MB memory (cgroup v1 memory)"},
		{"cgroup v2 of its own", delegateV2Own, "[cgroups delegated: the sidecar moved into a leaf of its own cgroup"},
		{"cgroup v2 in a user manager's tree", delegateUserManager, "[cgroups beside the sidecar's cgroup, in the user manager's "},
	}
	for _, pl := range placements {
		for _, name := range confining {
			t.Run(pl.name+"/"+name, func(t *testing.T) {
				move := pl.setup(t)
				cmd := exec.Command(bin, "nonroot-cgroup-check", name, work, pl.want)
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
				cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
				stdin, _ := cmd.StdinPipe()
				var out strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				err := move(cmd.Process.Pid)
				if err != nil {
					cmd.Process.Kill()
				}
				fmt.Fprintln(stdin, "go")
				waitErr := cmd.Wait()
				if err != nil {
					t.Fatalf("placing the sidecar: %v", err)
				}
				reportChecks(t, "nonroot-cgroup-check "+name, out.String(), waitErr)
			})
		}
	}
}

// nonrootBinary copies the test binary where uid 65534 can run it, with a
// work directory it owns.
func nonrootBinary(t *testing.T) (bin, work string) {
	dir := varTempDir(t)
	os.Chmod(dir, 0o755)
	bin = filepath.Join(dir, "sandbox.test")
	copyFile(t, mustExecutable(t), bin)
	work = filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	os.Chown(work, nobody, nobody)
	return bin, work
}

// reportChecks turns the "ok …"/"FAIL …"/"SKIP …" lines of a check child
// into the test's outcome.
func reportChecks(t *testing.T, what, out string, err error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	passed := 0
	for sc.Scan() {
		switch line := sc.Text(); {
		case strings.HasPrefix(line, "ok "):
			passed++
		case strings.HasPrefix(line, "SKIP "):
			t.Skip(line)
		default:
			t.Error(line)
		}
	}
	if err != nil || passed == 0 {
		t.Errorf("%s: %v, %d checks passed", what, err, passed)
	}
}

// delegateV1 creates a memory and a pids cgroup v1 owned by uid 65534
// below this test's own, as root delegates a v1 subtree.
func delegateV1(t *testing.T) func(int) error {
	self, mounts := procFiles(t)
	var dirs []string
	for _, ctl := range []string{"memory", "pids"} {
		rel, ok := launch.CgroupPath(self, ctl)
		mnt := launch.MountPoint(mounts, "cgroup", ctl)
		if !ok || mnt == "" {
			t.Skipf("no cgroup v1 %s hierarchy here", ctl)
		}
		dirs = append(dirs, testCgroup(t, filepath.Join(mnt, rel)))
	}
	return func(pid int) error {
		for _, d := range dirs {
			if err := writePid(d, pid); err != nil {
				return err
			}
		}
		return nil
	}
}

// delegateV2Own creates a cgroup v2 below the root whose controllers
// include memory and pids, owned by uid 65534 (what Delegate=yes does).
func delegateV2Own(t *testing.T) func(int) error {
	root := unifiedWithLimits(t)
	dir := testCgroup(t, root)
	return func(pid int) error { return writePid(dir, pid) }
}

// delegateUserManager builds user@65534.service/app.slice/app.scope below
// a test cgroup, as a user manager does (every cgroup in it owned by the
// user, memory and pids enabled down to app.slice), and puts the sidecar
// in app.scope with another process of the user.
func delegateUserManager(t *testing.T) func(int) error {
	root := unifiedWithLimits(t)
	top := testCgroup(t, root)
	os.Chown(top, 0, 0)
	scope := filepath.Join(top, "user@65534.service", "app.slice", "app.scope")
	for d := top; d != scope; {
		if err := os.WriteFile(filepath.Join(d, "cgroup.subtree_control"), []byte("+memory +pids"), 0); err != nil {
			t.Fatalf("enabling memory and pids in %s: %v", d, err)
		}
		rest, _ := filepath.Rel(d, scope)
		d = filepath.Join(d, strings.Split(rest, "/")[0])
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		chownCgroup(d)
	}
	sibling := exec.Command("sleep", "600")
	sibling.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if err := sibling.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sibling.Process.Kill(); sibling.Wait() })
	return func(pid int) error {
		if err := writePid(scope, sibling.Process.Pid); err != nil {
			return err
		}
		return writePid(scope, pid)
	}
}

// unifiedWithLimits is the root of the unified hierarchy, with memory and
// pids enabled for its children; the test skips where it has neither.
func unifiedWithLimits(t *testing.T) string {
	_, mounts := procFiles(t)
	mnt := launch.MountPoint(mounts, "cgroup2", "")
	if mnt == "" || !launch.ListsMemoryAndPids(mnt, "cgroup.controllers") {
		t.Skip("the unified cgroup hierarchy here has no memory and pids controllers (they are bound to cgroup v1)")
	}
	for _, c := range []string{"+memory", "+pids"} {
		os.WriteFile(filepath.Join(mnt, "cgroup.subtree_control"), []byte(c), 0)
	}
	return mnt
}

// testCgroup creates a cgroup below parent owned by uid 65534 and removes
// it, and whatever the test left below it, at the end.
func testCgroup(t *testing.T, parent string) string {
	dir := filepath.Join(parent, "steerable-deleg-"+strconv.FormatUint(rand.Uint64(), 36))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot create a cgroup below %s: %v", parent, err)
	}
	chownCgroup(dir)
	t.Cleanup(func() { removeCgroupTree(dir) })
	return dir
}

// chownCgroup gives a cgroup to uid 65534: the directory and the files
// through which processes move and controllers are handed down.
func chownCgroup(dir string) {
	os.Chown(dir, nobody, nobody)
	for _, f := range []string{"cgroup.procs", "cgroup.threads", "cgroup.subtree_control", "tasks"} {
		os.Chown(filepath.Join(dir, f), nobody, nobody)
	}
}

func removeCgroupTree(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeCgroupTree(filepath.Join(dir, e.Name()))
		}
	}
	launch.RemoveCgroup(dir, 2)
}

func writePid(dir string, pid int) error {
	return os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
}

func procFiles(t *testing.T) (self, mounts string) {
	s, err1 := os.ReadFile("/proc/self/cgroup")
	m, err2 := os.ReadFile("/proc/self/mountinfo")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(s), string(m)
}

// nonrootCgroupCheck runs as uid 65534 once the test has placed it (a
// line on stdin), and prints one line per check.
func nonrootCgroupCheck(name, work, want string) int {
	bufio.NewReader(os.Stdin).ReadString('\n')
	ws, _ := os.MkdirTemp(work, "ws-")
	defer os.RemoveAll(ws)
	s, err := Open(context.Background(), Options{Choice: name, Workspace: ws, TempParent: work, Self: OpenSelf("sandbox.test"),
		Environ: []string{"PATH=" + os.Getenv("PATH")}, Limits: Limits{MaxProcs: 32, MaxMemoryBytes: 256 << 20}})
	if err != nil {
		fmt.Println("FAIL open:", err)
		return 1
	}
	defer s.Close()
	if s.Info().Backend != name {
		if name == "bwrap" && strings.Contains(s.Summary(), "bwrap: ") {
			fmt.Println("SKIP unprivileged bwrap does not work here:", s.Summary())
			return 0
		}
		fmt.Println("FAIL backend:", s.Summary())
		return 1
	}
	check := func(what string, ok bool, detail any) {
		if ok {
			fmt.Println("ok", what)
		} else {
			fmt.Printf("FAIL %s: %v\n", what, detail)
		}
	}
	run := func(script string, timeout time.Duration) Result {
		res, err := s.Run(context.Background(), Command{Argv: []string{"bash", "-c", script}, Dir: ws},
			RunOptions{MaxOutput: 1 << 16, Timeout: timeout})
		if err != nil {
			res.Stderr = err.Error()
		}
		return res
	}
	check("pids and memory cgroups", s.launcher.HasCgroup(launch.CtlPids) && s.launcher.HasCgroup(launch.CtlMemory), s.Summary())
	check("summary says where", strings.Contains(s.Summary(), want), s.Summary())
	res := run(`bomb() { bomb & bomb; }; bomb`, 3*time.Second)
	check("fork bomb counted by the pids cgroup", res.Limit == "processes" && res.LimitCertain && res.LimitEvidence == "", res)
	if _, err := exec.LookPath("python3"); err == nil {
		res = run(`exec python3 -c 'b = bytearray(3 << 30)'`, 30*time.Second)
		check("allocation killed by the memory cgroup", res.Limit == "memory" && res.LimitCertain && res.ExitCode == 137, res)
	}
	res = run(`echo still here`, 10*time.Second)
	check("the next call", res.Stdout == "still here\n" && res.Limit == "", res)
	return 0
}
