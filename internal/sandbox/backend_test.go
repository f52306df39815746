package sandbox

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// confining are the backends that must confine on this machine (each test
// skips a backend only where its capability is truly absent).
var confining = []string{"bwrap", "landlock"}

func TestWritesInsideTheRootsSucceed(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			res := run(t, s, `echo hi > ws.txt && mkdir -p a/b && mv ws.txt a/b/ && echo t > "$TMPDIR/t.txt" && echo > /dev/null`, RunOptions{})
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			for _, p := range []string{filepath.Join(s.Policy().WritableRoots[0], "a/b/ws.txt"), filepath.Join(s.TempDir(), "t.txt")} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s not written: %v", p, err)
				}
			}
		})
	}
}

// The attack: a command writes (or truncates) a file outside the workspace —
// another temp dir, the home directory, a system file.
func TestWritesOutsideTheRootsFail(t *testing.T) {
	outside := sandboxtest.RealTempDir(t)
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	homeFile := filepath.Join(home, "steerable-sandbox-escape-"+strconv.Itoa(os.Getpid()))
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			attacks := []string{
				`echo pwned > "` + filepath.Join(outside, "new.txt") + `"`,
				`: > "` + victim + `"`,
				`truncate -s 0 "` + victim + `"`,
				`echo pwned > "` + homeFile + `"`,
				`touch /etc/steerable-sandbox-escape`,
			}
			for _, a := range attacks {
				if res := run(t, s, a, RunOptions{}); res.ExitCode == 0 {
					t.Errorf("%q succeeded under %s", a, name)
				}
			}
			defer os.Remove(homeFile)
			for _, p := range []string{filepath.Join(outside, "new.txt"), homeFile, "/etc/steerable-sandbox-escape"} {
				if _, err := os.Stat(p); err == nil {
					os.Remove(p)
					t.Errorf("%s was created on the host", p)
				}
			}
			if b, _ := os.ReadFile(victim); string(b) != "keep" {
				t.Errorf("victim changed to %q", b)
			}
		})
	}
}

// The attack: with the network off, a command reaches a service on the
// host's loopback over TCP or UDP.
func TestNetworkOffBlocksTCPAndUDP(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			tcp, udp, accepted := listeners(t)
			res := run(t, s, `exec 3<>/dev/tcp/127.0.0.1/`+tcp, RunOptions{})
			if res.ExitCode == 0 {
				t.Errorf("TCP connect succeeded with the network off")
			}
			run(t, s, `echo leak > /dev/udp/127.0.0.1/`+udp, RunOptions{})
			if got := accepted(); got != "" {
				t.Errorf("the host received %q with the network off", got)
			}
		})
	}
}

func TestNetworkOnAllowsTCP(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, true)
			tcp, _, _ := listeners(t)
			if res := run(t, s, `exec 3<>/dev/tcp/127.0.0.1/`+tcp+` && echo ok >&3`, RunOptions{}); res.ExitCode != 0 {
				t.Errorf("TCP connect failed with the network on: %s", res.Stderr)
			}
			if s.Info().Network != true {
				t.Errorf("Info().Network = false with the network on")
			}
		})
	}
}

// listeners starts a TCP and a UDP listener on 127.0.0.1 and returns their
// ports and a function reporting what reached them.
func listeners(t *testing.T) (tcpPort, udpPort string, got func() string) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close(); pc.Close() })
	got = func() string {
		var seen []string
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(50 * time.Millisecond))
		if c, err := ln.Accept(); err == nil {
			seen = append(seen, "tcp connection")
			c.Close()
		}
		pc.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		buf := make([]byte, 64)
		if n, _, err := pc.ReadFrom(buf); err == nil {
			seen = append(seen, "udp "+string(buf[:n]))
		}
		return strings.Join(seen, ", ")
	}
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port), got
}

// The attack: a sidecar running as root hands its capabilities to the
// command (remount / read-write, load modules, reconfigure the network).
func TestChildHoldsNoCapabilities(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("capabilities matter when the sidecar runs as root; this test runs as uid", os.Geteuid())
	}
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, true)
			// A nested exec: root would regain capabilities on exec if the
			// backend only cleared the current sets.
			res := run(t, s, `bash -c "grep -E '^Cap(Inh|Prm|Eff|Amb):' /proc/self/status"`, RunOptions{})
			for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
				if !strings.HasSuffix(line, "0000000000000000") {
					t.Errorf("%s: %s", name, line)
				}
			}
		})
	}
}

// SIGKILL of the sidecar: under every backend the whole tree dies — the
// command, its background job and a process that started its own session —
// through the launcher's PID namespace (its init gets the parent-death
// signal from the thread that started it).
func TestSidecarSIGKILLLeavesNoChildren(t *testing.T) {
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			backendFor(t, name)
			marker := uniqueMarker(t)
			exe, _ := os.Executable()
			// Its session temp dir is left behind by the SIGKILL: keep it in
			// the test's own temp dir.
			parent := exec.Command(exe, "spawn-parent", name, marker, sandboxtest.RealTempDir(t))
			out, err := parent.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			parent.Stderr = os.Stderr
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if strings.TrimSpace(line) != "started" {
				parent.Process.Kill()
				parent.Wait()
				t.Fatalf("spawn-parent said %q", line)
			}
			waitCount(t, marker, 3)
			parent.Process.Kill()
			parent.Wait()
			waitGone(t, marker)
		})
	}
}

// A sidecar SIGKILLed in the first milliseconds of a bwrap call (before
// bwrap arms --die-with-parent) must not leave the command running (SPEC
// §4.2): bwrap runs as the init of the launcher's PID namespace, whose
// parent-death signal is armed before bwrap starts.
func TestSidecarSIGKILLInBwrapsStartWindow(t *testing.T) {
	backendFor(t, "bwrap")
	exe, _ := os.Executable()
	scratch := sandboxtest.RealTempDir(t)
	for i := range 12 {
		marker := uniqueMarker(t) + "-" + strconv.Itoa(i)
		parent := exec.Command(exe, "spawn-parent", "bwrap", marker, scratch)
		out, _ := parent.StdoutPipe()
		if err := parent.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n') // Start returned: bwrap is setting up
		parent.Process.Kill()
		parent.Wait()
		time.Sleep(200 * time.Millisecond) // what survived would have started by now
		waitGone(t, marker)
	}
}

func waitCount(t *testing.T, marker string, want int) {
	deadline := time.Now().Add(5 * time.Second)
	for len(sandboxtest.Started(marker)) < want {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d marked processes started", len(sandboxtest.Started(marker)), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// spawnParent plays a sidecar: it starts a confined child carrying marker,
// with a background job and a setsid escapee, and waits to be killed.
func spawnParent(backend, marker, scratch string) int {
	ws := filepath.Join(scratch, "ws")
	os.Mkdir(ws, 0o755)
	s, err := Open(context.Background(), Options{Choice: backend, Workspace: ws, TempParent: scratch,
		Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil || s.Info().Backend != backend {
		os.Stderr.WriteString("spawn-parent: backend not usable\n")
		return 1
	}
	script := `(exec -a ` + marker + `-bg sleep 600) & setsid bash -c 'exec -a ` + marker + `-sid sleep 600' & exec -a ` + marker + ` sleep 600`
	if _, err := s.Start(Command{Argv: []string{"bash", "-c", script}, Dir: ws}); err != nil {
		os.Stderr.WriteString("spawn-parent: " + err.Error() + "\n")
		return 1
	}
	os.Stdout.WriteString("started\n")
	select {}
}

// The control for the network tests: unconfined, the same commands do reach
// the listeners, so a pass above means the backend stopped them.
func TestNetworkProbesReachListenersUnconfined(t *testing.T) {
	s := openSandbox(t, "none", false)
	tcp, udp, accepted := listeners(t)
	run(t, s, `exec 3<>/dev/tcp/127.0.0.1/`+tcp+`; echo leak > /dev/udp/127.0.0.1/`+udp, RunOptions{})
	if got := accepted(); got != "tcp connection, udp leak\n" {
		t.Errorf("unconfined probes reached %q, want both", got)
	}
}
