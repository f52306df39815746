package winetest

// The commands of the Windows scripts. A script plays the host of one
// sidecar at a time, run as `wine64 steerable-sidecar.exe` in $WORK.
// Besides scripttest's send, rpc, await, notification and reverse:
//
//	sidecar start [flags]     start it with the script's environment; wait for lifecycle.ready
//	sidecar start-mcp [flags] start `steerable-sidecar.exe mcp` (no lifecycle.ready in MCP mode)
//	sidecar close             close its stdin (EOF)
//	sidecar kill              kill it (the Wine process: no code of it runs after)
//	sidecar wait              wait for it to exit; prints "exit N"
//	sidecar stderr            print what it wrote to stderr so far
//	procs TOKEN               print how many processes carry TOKEN in their command line
//	gone TOKEN                wait until no process carries TOKEN in its command line
//	tree-up DIR TOKEN N       wait until the stand-in shell's tree TOKEN announced N members in DIR
//
// Every wait is bounded (waitTimeout), so a broken sidecar fails the script
// instead of hanging it.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/scripttest"
)

// waitTimeout bounds every wait on failure only: Wine on a loaded machine
// is slow to start a process, and nothing passes by waiting less.
const waitTimeout = 90 * time.Second

// outputLinger is how long the sidecar's stdout and stderr may stay open
// after it exited: an exited process's pipes end at once unless another
// holds them (a wineserver it started, say).
const outputLinger = 10 * time.Second

type sessionKey struct{}

// session is the live sidecar of a script.
type session struct {
	*scripttest.Session
	wine *wine
}

func newSession(w *wine) *session {
	s := &session{Session: scripttest.New(waitTimeout), wine: w}
	s.Linger = outputLinger
	return s
}

var cmds = scripttest.Commands(map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"sidecar": cmdSidecar,
	"procs":   cmdProcs,
	"gone":    cmdGone,
	"tree-up": cmdTreeUp,

	"writes":         cmdWrites,
	"one-of":         cmdOneOf,
	"kill-mid-write": cmdKillMidWrite,
	"old-or-new":     cmdOldOrNew,
	"bom-crlf":       cmdBOMCRLF,
}, func(ts *testscript.TestScript) *scripttest.Session { return sess(ts).Session })

func sess(ts *testscript.TestScript) *session { return ts.Value(sessionKey{}).(*session) }

func cmdSidecar(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: sidecar start|start-mcp|close|kill|wait|stderr")
	}
	s := sess(ts)
	switch args[0] {
	case "start":
		s.spawn(ts, args[1:])
		s.Next(ts, scripttest.Notification("lifecycle.ready"))
	case "start-mcp":
		s.spawn(ts, append([]string{"mcp"}, args[1:]...))
	case "close":
		s.Stdin.Close()
	case "kill":
		ts.Check(s.Cmd.Process.Kill())
	case "wait":
		s.Wait(ts, neg, waitTimeout)
	case "stderr":
		time.Sleep(100 * time.Millisecond) // the log sink writes from a goroutine of its own
		fmt.Fprint(ts.Stdout(), s.Stderr())
	default:
		ts.Fatalf("unknown sidecar subcommand %q", args[0])
	}
}

// env is the sidecar's environment: Wine's, plus every variable of the
// sidecar's the script set.
func (s *session) env(ts *testscript.TestScript) []string {
	env := s.wine.env()
	for _, v := range config.Vars() {
		if val := ts.Getenv(v.Name); val != "" {
			env = append(env, v.Name+"="+val)
		}
	}
	return env
}

// spawn starts the sidecar under Wine in $WORK.
func (s *session) spawn(ts *testscript.TestScript, args []string) {
	cmd := exec.Command(s.wine.loader, append([]string{s.wine.sidecar}, args...)...)
	cmd.Dir = ts.Getenv("WORK")
	cmd.Env = s.env(ts)
	s.Start(ts, cmd, scripttest.Stdio{})
}

// withToken lists the processes whose command line carries token (Wine
// shows a Windows process's command line as its own).
func withToken(token string) []string {
	var out []string
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), token) {
			out = append(out, filepath.Base(filepath.Dir(p))+": "+strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " ")))
		}
	}
	return out
}

func cmdProcs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: procs TOKEN")
	}
	fmt.Fprintf(ts.Stdout(), "%d\n", len(withToken(args[0])))
}

// cmdGone waits until no process carries the token: Wine ends a job's
// processes asynchronously, so they may outlive the reply by a moment.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: gone TOKEN")
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		left := withToken(args[0])
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%d processes of the tree still running after %v:\n%s", len(left), waitTimeout, strings.Join(left, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cmdTreeUp waits until a tree of the stand-in shell is up: each member
// writes DIR/TOKEN.<pid> once running.
func cmdTreeUp(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: tree-up DIR TOKEN N")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	deadline := time.Now().Add(waitTimeout)
	for {
		m, _ := filepath.Glob(filepath.Join(ts.MkAbs(args[0]), args[1]+".*"))
		if len(m) >= n {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("the tree %s has %d of %d members up after %v", args[1], len(m), n, waitTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
