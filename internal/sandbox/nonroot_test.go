//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobody is the unprivileged uid the non-root checks run as.
const nobody = 65534

// A desktop sidecar is not root: its PID namespace needs a user namespace
// of its own (mapped while the child is stopped at exec, since the
// thread-scoped Landlock thread cannot write /proc), and RLIMIT_NPROC in
// that namespace stands in for a pids cgroup. When the tests run as root
// (as in CI), this re-runs the checks as uid 65534 in a copy of the test
// binary.
func TestUnprivilegedSidecar(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root, to play an unprivileged sidecar as uid 65534; this user's own runs of the other tests cover it")
	}
	bin, work := nonrootBinary(t)
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin, "nonroot-check", name, work)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			out, err := cmd.CombinedOutput()
			reportChecks(t, "nonroot-check "+name, string(out), err)
		})
	}
}

// nonrootCheck runs as uid 65534 and prints one line per check.
func nonrootCheck(name, work string) int {
	ws, _ := os.MkdirTemp(work, "ws-")
	home, _ := os.MkdirTemp(work, "home-")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_test"), []byte("ssh-secret"), 0o600)
	outside, _ := os.MkdirTemp(work, "outside-")
	defer os.RemoveAll(ws)
	defer os.RemoveAll(home)
	defer os.RemoveAll(outside)
	s, err := Open(context.Background(), Options{Choice: name, Workspace: ws, TempParent: work, Self: OpenSelf("sandbox.test"),
		Environ: []string{"PATH=" + os.Getenv("PATH")}, Deny: DenyOptions{Home: home},
		Limits: Limits{MaxProcs: 32, MaxMemoryBytes: 512 << 20, TmpBytes: 8 << 20}})
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
	check("lifetime", s.Lifetime() == LifetimePIDNamespace && s.launcher.Mode().UserNS && s.launcher.Mode().Stop, s.Summary())
	check("summary names RLIMIT_NPROC", strings.Contains(s.Summary(), "32 processes (RLIMIT_NPROC in the call's user namespace)"), s.Summary())
	script := `id -u; ulimit -u; ulimit -v; echo in > in.txt; echo pwned > ` + outside + `/escape; cat ` + home + `/.ssh/id_test; ` +
		`setsid bash -c 'exec -a nonroot-escapee-` + name + ` sleep 600' & sleep 0.2`
	res, err := s.Run(context.Background(), Command{Argv: []string{"bash", "-c", script}, Dir: ws}, RunOptions{MaxOutput: 1 << 16, Timeout: 10 * time.Second})
	if err != nil {
		fmt.Println("FAIL run:", err)
		return 1
	}
	lines := strings.Split(res.Stdout, "\n")
	check("uid kept in the namespace", len(lines) > 0 && lines[0] == fmt.Sprint(nobody), res)
	check("RLIMIT_NPROC", len(lines) > 1 && lines[1] == "32", res)
	check("RLIMIT_AS", len(lines) > 2 && lines[2] == fmt.Sprint(512<<10), res)
	_, inErr := os.Stat(filepath.Join(ws, "in.txt"))
	check("write inside", inErr == nil, inErr)
	_, outErr := os.Stat(filepath.Join(outside, "escape"))
	check("write outside refused", outErr != nil, "escaped")
	check("deny-read", !strings.Contains(res.Stdout, "ssh-secret"), res.Stdout)
	gone := false
	for range 100 {
		if gone = len(markedOthers("nonroot-escapee-"+name)) == 0; gone {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	check("setsid escapee gone", gone, "still running")
	rlimitChecks(s, name, ws, check)
	s.Close()
	return nonrootHomeWorkspace(name, home, work, check)
}

// nonrootHomeWorkspace: the unprivileged sidecar's workspace is its home,
// which holds a credential store; a command cannot read it, write it, or
// move it from under the deny list, and the rest of the home stays
// writable.
func nonrootHomeWorkspace(name, home, work string, check func(string, bool, any)) int {
	os.WriteFile(filepath.Join(home, "notes.txt"), []byte("notes"), 0o644)
	os.Mkdir(filepath.Join(home, "proj"), 0o755)
	s, err := Open(context.Background(), Options{Choice: name, Workspace: home, TempParent: work, Self: OpenSelf("sandbox.test"),
		Environ: []string{"PATH=" + os.Getenv("PATH")}, Deny: DenyOptions{Home: home}})
	if err != nil {
		fmt.Println("FAIL open:", err)
		return 1
	}
	defer s.Close()
	script := `cat .ssh/id_test; echo x > .ssh/planted; mv .ssh sshx; cat sshx/id_test; cat notes.txt; echo w > proj/w.txt && cat proj/w.txt`
	res, err := s.Run(context.Background(), Command{Argv: []string{"bash", "-c", script}, Dir: home}, RunOptions{MaxOutput: 1 << 16, Timeout: 10 * time.Second})
	if err != nil {
		fmt.Println("FAIL run:", err)
		return 1
	}
	check("deny-read inside the workspace", !strings.Contains(res.Stdout, "ssh-secret"), res)
	_, planted := os.Stat(filepath.Join(home, ".ssh", "planted"))
	check("no write into a store inside the workspace", planted != nil, "planted")
	_, moved := os.Stat(filepath.Join(home, "sshx"))
	check("a store inside the workspace stays in place", moved != nil, "moved")
	check("the rest of the workspace", strings.HasSuffix(res.Stdout, "notesw\n"), res)
	return 0
}

// rlimitChecks: without a cgroup, RLIMIT_NPROC and RLIMIT_AS hold and a
// call stopped by either says so (Result.Limit), and bwrap's /tmp is
// capped (Limits.TmpBytes).
func rlimitChecks(s *Sandbox, name, ws string, check func(string, bool, any)) {
	run := func(script string, timeout time.Duration) Result {
		res, err := s.Run(context.Background(), Command{Argv: []string{"bash", "-c", script}, Dir: ws},
			RunOptions{MaxOutput: 1 << 16, Timeout: timeout})
		if err != nil {
			res.Stderr = err.Error()
		}
		return res
	}
	check("no cgroup here", !s.launcher.Cgroups(), s.Summary())
	res := run(`bomb() { bomb & bomb; }; bomb`, 3*time.Second)
	check("fork bomb stopped at RLIMIT_NPROC", res.TimedOut && res.Limit == "processes" && res.LimitCertain, res)
	if _, err := exec.LookPath("python3"); err == nil {
		res = run(`exec python3 -c 'b = bytearray(3 << 30)'`, 20*time.Second)
		check("allocation refused by RLIMIT_AS", res.ExitCode != 0 && res.Limit == "memory" && !res.LimitCertain &&
			strings.Contains(res.LimitEvidence, "MemoryError"), res)
	}
	if name != "bwrap" {
		return
	}
	check("summary names the /tmp cap", strings.Contains(s.Summary(), "/tmp a 8 MB tmpfs (STEERABLE_SANDBOX_TMP_MB)"), s.Summary())
	res = run(`df -k /tmp | tail -1; head -c 16M /dev/zero > /tmp/fill; echo "rc=$?"; du -k /tmp/fill`, 20*time.Second)
	check("/tmp capped", strings.Contains(res.Stdout, " 8192 ") && strings.Contains(res.Stderr, "No space left on device") &&
		strings.Contains(res.Stdout, "rc=1\n8192\t"), res)
}

func markedOthers(marker string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(string(b), marker) {
			found = append(found, e.Name())
		}
	}
	return found
}
