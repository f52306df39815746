package main

// Script commands for the sandbox and bash scripts:
//
//	procs running|gone MARKER  wait (≤ waitTimeout) until some process runs with argv[0] starting with
//	                           MARKER (exec -a) / no process has MARKER anywhere in its command line
//	listen                     start a TCP listener on 127.0.0.1, set $PORT; closed when the script ends
//	[landlock]                 condition: the kernel has Landlock

import (
	"fmt"
	"net"
	"strconv"
	"syscall"
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
				syscall.Kill(p, syscall.SIGKILL) // do not leave them behind the failed test
			}
			ts.Fatalf("processes with %q in their command line: %v, want %s", args[1], pids, args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func cmdListen(ts *testscript.TestScript, neg bool, args []string) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	ts.Check(err)
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
	ts.Setenv("PORT", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}

// scriptCondition adds [landlock] and [mcpnpm].
func scriptCondition(cond string) (bool, error) {
	if cond == "mcpnpm" {
		return npmServersInstalled(), nil
	}
	if cond == "landlock" {
		abi, err := llsys.LandlockGetABIVersion()
		return err == nil && abi > 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
