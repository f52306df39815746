package main

// Script support for the lsp_* scripts:
//
//	[lspgo] [lsppy] [lspts]       conditions: gopls / pyright-langserver / typescript-language-server
//	                              is installed where a sandboxed server can run it (.ci/run installs them)
//	lspprocs running|gone|kill    wait until a language server of this script runs / none does, or kill
//	                              every one (SIGKILL, as a crash): a server is the process whose
//	                              environment points XDG_CACHE_HOME into this script's state dir
//
// Setup exports $LSP_PATH, the directories holding the servers, for
// `env PATH=$LSP_PATH:$PATH`.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// lspNodeModules is where .ci/run installs pyright and
// typescript-language-server (LSP_NODE_MODULES when the checkout is below
// /tmp, which bwrap's private /tmp would hide from a server).
func lspNodeModules() string {
	if d := os.Getenv("LSP_NODE_MODULES"); d != "" {
		return d
	}
	abs, _ := filepath.Abs("../../.ci/lsp/node_modules")
	return abs
}

// goplsPath finds gopls on PATH or in the Go bin directory.
func goplsPath() string {
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	for _, p := range []string{os.Getenv("GOBIN"), filepath.Join(gopath, "bin")} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(p, "gopls")); err == nil {
			return filepath.Join(p, "gopls")
		}
	}
	return ""
}

// lspPath is $LSP_PATH: the servers' directories.
func lspPath() string {
	var dirs []string
	if g := goplsPath(); g != "" {
		dirs = append(dirs, filepath.Dir(g))
	}
	dirs = append(dirs, filepath.Join(lspNodeModules(), ".bin"))
	return strings.Join(dirs, string(os.PathListSeparator))
}

// lspCondition answers [lspgo], [lsppy] and [lspts]; handled is false for
// other conditions.
func lspCondition(cond string) (ok, handled bool) {
	visible := func(p string) bool { return p != "" && !strings.HasPrefix(p, "/tmp/") }
	bin := filepath.Join(lspNodeModules(), ".bin")
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	switch cond {
	case "lspgo":
		return visible(goplsPath()), true
	case "lsppy":
		return visible(bin) && exists(filepath.Join(bin, "pyright-langserver")), true
	case "lspts":
		return visible(bin) && exists(filepath.Join(bin, "typescript-language-server")), true
	}
	return false, false
}

func cmdLSPProcs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: lspprocs running|gone|kill")
	}
	marker := []byte("XDG_CACHE_HOME=" + ts.Getenv("STEERABLE_STATE_DIR") + "/lsp-cache/")
	deadline := time.Now().Add(waitTimeout)
	for {
		pids := processesWithEnv(marker)
		switch args[0] {
		case "kill":
			if len(pids) == 0 {
				ts.Fatalf("no language server of this script is running")
			}
			for _, p := range pids {
				killPid(p)
			}
			return
		case "running":
			if len(pids) > 0 {
				return
			}
		case "gone":
			if len(pids) == 0 {
				return
			}
		default:
			ts.Fatalf("usage: lspprocs running|gone|kill")
		}
		if time.Now().After(deadline) {
			for _, p := range pids {
				killPid(p) // do not leave them behind the failed test
			}
			ts.Fatalf("language server processes of this script: %v, want %s", pids, args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killPid sends SIGKILL to pid.
func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// processesWithEnv lists the processes whose environment holds marker.
func processesWithEnv(marker []byte) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(b, marker) {
			out = append(out, pid)
		}
	}
	return out
}
