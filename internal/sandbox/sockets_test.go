//go:build linux

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// unixListener listens on a pathname UNIX socket in a directory outside the
// workspace and visible inside bwrap (a Docker daemon's socket, say), and
// reports whether anything connected.
func unixListener(t *testing.T) (path string, connected func() bool) {
	path = filepath.Join(varTempDir(t), "daemon.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o777)
	t.Cleanup(func() { ln.Close() })
	got := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			got <- struct{}{}
			c.Close()
		}
	}()
	return path, func() bool {
		select {
		case <-got:
			return true
		case <-time.After(100 * time.Millisecond):
			return false
		}
	}
}

// connectScript connects to the socket $1 with python3 (bash has no UNIX
// sockets) and exits 0 on success.
const connectScript = `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' `

func needPython(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

// The attack: with the network off, a command talks to a daemon through
// its UNIX socket (a Docker socket is root on the host). socket(AF_UNIX)
// is refused under every confining backend; socketpair stays allowed.
func TestUnixSocketsAreRefusedWithTheNetworkOff(t *testing.T) {
	needPython(t)
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			path, connected := unixListener(t)
			res := run(t, s, connectScript+path, RunOptions{})
			if res.ExitCode == 0 || connected() {
				t.Errorf("connected to %s: %+v", path, res)
			}
			if res := run(t, s, `python3 -c 'import socket; a,b=socket.socketpair(); a.send(b"x"); print(b.recv(1))'`, RunOptions{}); res.Stdout != "b'x'\n" {
				t.Errorf("socketpair failed: %+v", res)
			}
		})
	}
}

// STEERABLE_SANDBOX_UNIX_SOCKETS=1 lifts the rule for a user who needs a
// local agent socket; IP stays off.
func TestUnixSocketsCanBeAllowed(t *testing.T) {
	needPython(t)
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openWith(t, name, Options{UnixSockets: true})
			path, connected := unixListener(t)
			if res := run(t, s, connectScript+path, RunOptions{}); res.ExitCode != 0 || !connected() {
				t.Errorf("could not connect with UNIX sockets allowed: %+v", res)
			}
			tcp, _, _ := listeners(t)
			if res := run(t, s, `exec 3<>/dev/tcp/127.0.0.1/`+tcp, RunOptions{}); res.ExitCode == 0 {
				t.Errorf("TCP connected with only UNIX sockets allowed")
			}
		})
	}
}

// The attack: a command signals a process outside its sandbox (kill the
// sidecar, or the host by pid). The PID namespace hides every outside pid,
// under every backend; Landlock also scopes signals to its domain.
func TestNoSignalsOutOfTheSandbox(t *testing.T) {
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			for _, pid := range []int{os.Getpid(), victim.Process.Pid} {
				res := run(t, s, `kill -0 `+strconv.Itoa(pid)+` && echo REACHED`, RunOptions{})
				if strings.Contains(res.Stdout, "REACHED") {
					t.Errorf("kill -0 %d succeeded from inside", pid)
				}
			}
		})
	}
	if victim.ProcessState != nil {
		t.Error("the victim died")
	}
}
