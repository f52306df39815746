package main

// Script commands for the sandbox and bash scripts:
//
//	procs running|gone MARKER  wait (≤ waitTimeout) until some process runs with argv[0] starting with
//	                           MARKER (exec -a) / no process has MARKER anywhere in its command line
//	listen                     start a TCP listener on 127.0.0.1, set $PORT; closed when the script ends
//	listen unix                start a UNIX socket listener outside the workspace (under /var/tmp, so
//	                           bwrap's private /tmp does not hide it), set $SOCK
//	[landlock]                 condition: the kernel has Landlock
//	[cgroups]                  condition: root with the pids and memory controllers mounted (v1, or v2 at the root)

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

func cmdProcs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || (args[0] != "running" && args[0] != "gone") {
		ts.Fatalf("usage: procs running|gone MARKER")
	}
	want := args[0] == "running"
	deadline := time.Now().Add(waitTimeout)
	for {
		pids := sandboxtest.Marked(args[1])
		if want {
			pids = sandboxtest.Started(args[1])
		}
		if (len(pids) > 0) == want {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range pids {
				if proc, err := os.FindProcess(p); err == nil {
					proc.Kill() // do not leave them behind the failed test
				}
			}
			ts.Fatalf("processes with %q in their command line: %v, want %s", args[1], pids, args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func cmdListen(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 1 && args[0] == "unix" {
		dir, err := os.MkdirTemp("/var/tmp", "steerable-e2e-")
		ts.Check(err)
		ts.Defer(func() { os.RemoveAll(dir) })
		sock := filepath.Join(dir, "agent.sock")
		ln, err := net.Listen("unix", sock)
		ts.Check(err)
		os.Chmod(sock, 0o777)
		serve(ts, ln)
		ts.Setenv("SOCK", sock)
		return
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	ts.Check(err)
	serve(ts, ln)
	ts.Setenv("PORT", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}

// serve answers every connection with one line until the script ends.
func serve(ts *testscript.TestScript, ln net.Listener) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the host\n"))
			c.Close()
		}
	}()
	ts.Defer(func() { ln.Close() })
}

// scriptCondition adds [landlock], [cgroups] and [mcpnpm].
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "mcpnpm":
		return npmServersHint() == "", nil
	case "landlock":
		abi, err := llsys.LandlockGetABIVersion()
		return err == nil && abi > 0, nil
	case "cgroups":
		return cgroupsWritable(), nil
	case "race":
		return raceEnabled, nil
	}
	if ok, handled := lspCondition(cond); handled {
		return ok, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// cgroupsWritable approximates where the sandbox can create per-call pids
// and memory cgroups: as root, with both v1 hierarchies or a v2 root that
// offers both controllers.
func cgroupsWritable() bool {
	if os.Geteuid() != 0 {
		return false
	}
	_, errP := os.Stat("/sys/fs/cgroup/pids/cgroup.procs")
	_, errM := os.Stat("/sys/fs/cgroup/memory/cgroup.procs")
	if errP == nil && errM == nil {
		return true
	}
	b, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers")
	return err == nil && strings.Contains(string(b), "memory") && strings.Contains(string(b), "pids")
}
