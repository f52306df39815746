//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// run_code's shape: an interpreter with two extra pipes on fds 3 and 4,
// writable only a per-call temp dir (plus the workspace), the network off,
// an allowlisted environment.
func TestStartWithExtraFilesAndAPerCommandPolicy(t *testing.T) {
	needPython(t)
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false, "OPENAI_API_KEY=k")
			callDir := varTempDir(t)
			req, reqW, _ := os.Pipe()   // fd 3: the sidecar's requests
			respR, resp, _ := os.Pipe() // fd 4: the child's replies
			defer reqW.Close()
			defer respR.Close()
			p := s.Policy().WithWritable(callDir)
			prog := `import os, socket
r, w = os.fdopen(3, "r"), os.fdopen(4, "w")
line = r.readline().strip()
open(os.path.join(os.environ["CALL_DIR"], "out.txt"), "w").write(line)
try:
    socket.create_connection(("127.0.0.1", 9), 1)
    net = "net on"
except OSError:
    net = "net off"
w.write(line.upper() + " " + net + " key=" + str("OPENAI_API_KEY" in os.environ) + "\n")
w.flush()`
			proc, err := s.Start(Command{Argv: []string{"python3", "-c", prog}, Dir: s.TempDir(), Policy: &p,
				Env:        append(s.Env(EnvAllowlist), "CALL_DIR="+callDir),
				ExtraFiles: []*os.File{req, resp}})
			req.Close()
			resp.Close()
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(reqW, "hello\n")
			line, _ := bufio.NewReader(respR).ReadString('\n')
			if line != "HELLO net off key=False\n" {
				t.Errorf("bridge reply %q", line)
			}
			if exit, _ := proc.Wait(); exit.Code != 0 {
				t.Errorf("exit %+v", exit)
			}
			if b, _ := os.ReadFile(filepath.Join(callDir, "out.txt")); string(b) != "hello" {
				t.Errorf("the per-call dir was not writable: %q", b)
			}
		})
	}
}

// A plugin's shape: a long-lived process speaking over stdin/stdout pipes,
// with its own policy (network on for this one only), alive until stopped.
func TestStartLongLivedProcessOverPipes(t *testing.T) {
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			in, stdin, _ := os.Pipe()
			stdout, out, _ := os.Pipe()
			p := s.Policy().WithNetwork(true)
			proc, err := s.Start(Command{Argv: []string{"bash", "-c", `while read -r l; do echo "got $l"; done`}, Dir: s.TempDir(),
				Policy: &p, Stdin: in, Stdout: out})
			in.Close()
			out.Close()
			if err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stdout)
			for i := range 3 {
				io.WriteString(stdin, "ping "+strconv.Itoa(i)+"\n")
				if line, _ := r.ReadString('\n'); line != "got ping "+strconv.Itoa(i)+"\n" {
					t.Fatalf("reply %q", line)
				}
			}
			select {
			case <-proc.Done():
				t.Fatal("the process ended on its own")
			case <-time.After(100 * time.Millisecond):
			}
			proc.Stop(time.Second)
			stdin.Close()
			stdout.Close()
		})
	}
}

// bash_session's shape: an interactive shell on a PTY, the follower end
// its controlling terminal.
func TestStartOnATerminal(t *testing.T) {
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			leader, follower := openPTY(t)
			proc, err := s.Start(Command{Argv: []string{"bash", "--norc", "--noprofile", "-i"}, Dir: s.TempDir(), TTY: follower,
				Env: append(s.Env(EnvScrubbed), "PS1=$ ", "TERM=dumb")})
			follower.Close()
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(leader, "tty; echo term-ok-$((6*7))\n")
			got := readUntil(t, leader, "term-ok-42")
			// bwrap's fresh /dev shows the controlling terminal as /dev/console.
			if !strings.Contains(got, "/dev/pts/") && !strings.Contains(got, "/dev/console") {
				t.Errorf("the shell has no terminal: %q", got)
			}
			io.WriteString(leader, "exit\n")
			select {
			case <-proc.Done():
			case <-time.After(5 * time.Second):
				proc.Kill()
				t.Error("the shell did not exit")
			}
			leader.Close()
		})
	}
}

// openPTY opens a pseudo-terminal pair (what github.com/creack/pty does).
// The leader is opened non-blocking and wrapped by os.NewFile, so it is
// pollable and read deadlines hold (leader.Fd() would make it blocking,
// and a test waiting for output that never comes would hang).
func openPTY(t *testing.T) (leader, follower *os.File) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Skip("no /dev/ptmx:", err)
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	leader = os.NewFile(uintptr(fd), "/dev/ptmx")
	follower, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return leader, follower
}

func readUntil(t *testing.T, f *os.File, want string) string {
	var got strings.Builder
	buf := make([]byte, 4096)
	f.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on failure, not a race
	for !strings.Contains(got.String(), want) {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			t.Fatalf("reading the terminal: %v (so far %q)", err, got.String())
		}
	}
	return got.String()
}

// A plugin's sandbox:"none": the child runs with the sidecar's rights, yet
// in the session's launcher — the init of a PID namespace of its own where
// the kernel allows one, so its tree still dies with it.
func TestStartUnconfined(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			outside := varTempDir(t)
			res, err := s.Run(t.Context(), Command{Argv: []string{"bash", "-c", `echo x > "$1/f" && echo $$`, "bash", outside},
				Dir: s.TempDir(), Unconfined: true}, RunOptions{Timeout: 10 * time.Second, MaxOutput: 1024})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("unconfined run: %v %+v", err, res)
			}
			if _, err := os.Stat(filepath.Join(outside, "f")); err != nil {
				t.Errorf("the unconfined child could not write outside the roots: %v", err)
			}
			if s.Lifetime() == LifetimePIDNamespace && strings.TrimSpace(res.Stdout) != "1" {
				t.Errorf("the unconfined child is pid %q, want the init of its own namespace", res.Stdout)
			}
			confined, _ := s.Run(t.Context(), Command{Argv: []string{"bash", "-c", `echo x > "$1/g"`, "bash", outside}, Dir: s.TempDir()}, RunOptions{})
			if confined.ExitCode == 0 {
				t.Error("the same command without Unconfined wrote outside the roots")
			}
		})
	}
}

// run_code under STEERABLE_SIDECAR_CONFINED=1: the host confines the
// sidecar, so an inherited child skips the backend — it is started even
// when the named backend is unavailable, writes outside the roots (only
// the host's layer 1 stops it), and still runs in the launcher's PID
// namespace, so nothing it starts outlives it.
func TestInheritSkipsTheBackendButKeepsTheLifetime(t *testing.T) {
	s, err := Open(context.Background(), Options{Choice: "bwrap", Workspace: sandboxtest.RealTempDir(t), TempParent: sandboxtest.RealTempDir(t),
		Backends: []Backend{NewBwrap("/nonexistent/bwrap")}, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	outside := filepath.Join(varTempDir(t), "inherited")
	c := Command{Argv: []string{"sh", "-c", `echo ok > "$1"; echo $$`, "sh", outside}, Dir: "/"}
	if _, err := s.Run(context.Background(), c, RunOptions{MaxOutput: 64}); err != ErrUnavailable {
		t.Fatalf("without Inherit: Run = %v, want ErrUnavailable", err)
	}
	c.Inherit = true
	res, err := s.Run(context.Background(), c, RunOptions{MaxOutput: 64})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("with Inherit: %v %+v", err, res)
	}
	if b, _ := os.ReadFile(outside); string(b) != "ok\n" {
		t.Errorf("the inherited child did not run unwrapped: %q", b)
	}
	if s.Lifetime() != LifetimePIDNamespace || strings.TrimSpace(res.Stdout) != "1" {
		t.Errorf("the inherited child is pid %q under lifetime %q, want 1 in the launcher's PID namespace", res.Stdout, s.Lifetime())
	}
}

// run_code's policy: writable only its own dir; the workspace (below /tmp
// here, which bwrap replaces by a private tmpfs) stays readable but not
// writable.
func TestWithWritableOnlyKeepsTheOldRootsReadable(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			ws := s.Policy().WritableRoots[0]
			if !strings.HasPrefix(ws, "/tmp/") {
				t.Skipf("the workspace %s is not below /tmp", ws)
			}
			os.WriteFile(filepath.Join(ws, "in.txt"), []byte("seen"), 0o644)
			own := filepath.Join(s.TempDir(), "own")
			os.Mkdir(own, 0o700)
			p := s.Policy().WithWritableOnly(own)
			if diff := cmp.Diff([]string{own}, p.WritableRoots); diff != "" {
				t.Errorf("writable roots (-want +got):\n%s", diff)
			}
			res, err := s.Run(context.Background(), Command{Argv: []string{"sh", "-c",
				`cat in.txt; echo x > own-write 2>/dev/null && echo ws-written; echo y > "$1/f" && echo own-written`, "sh", own},
				Dir: ws, Policy: &p}, RunOptions{MaxOutput: 4096})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stdout != "seenown-written\n" {
				t.Errorf("stdout %q (stderr %q), want the workspace read, not written, and the own dir written", res.Stdout, res.Stderr)
			}
		})
	}
}
