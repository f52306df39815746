package winetest

// The commands of the Windows scripts. A script plays the host of one
// sidecar at a time, run as `wine64 steerable-sidecar.exe` in $WORK:
//
//	sidecar start [flags]     start it with the script's environment; wait for lifecycle.ready
//	sidecar start-mcp [flags] start `steerable-sidecar.exe mcp` (no lifecycle.ready in MCP mode)
//	send 'JSON'               write one raw line to its stdin
//	rpc ID METHOD ['PARAMS']  send a request and print its reply (match it with `stdout`)
//	await ID                  print the reply to an earlier `send` with that id
//	notification METHOD       print the params of the next such notification
//	reverse METHOD 'RESULT'   wait for a sidecar → host request, print its params, answer RESULT
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
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/config"
)

// waitTimeout bounds every wait on failure only: Wine on a loaded machine
// is slow to start a process, and nothing passes by waiting less.
const waitTimeout = 90 * time.Second

type sessionKey struct{}

// session is the live sidecar of a script.
type session struct {
	wine *wine

	cmd    *exec.Cmd
	stdin  *os.File
	exited chan struct{} // closed once the process is reaped and its stdout ended (or stayed open too long)
	stuck  bool          // stdout stayed open after the process exited: something inherited the pipe

	mu      sync.Mutex
	changed *sync.Cond
	frames  []map[string]json.RawMessage // stdout frames not yet consumed
	stderr  strings.Builder
	bad     []string // stdout lines that were not JSON-RPC frames
}

var cmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"sidecar":      cmdSidecar,
	"send":         cmdSend,
	"rpc":          cmdRPC,
	"await":        cmdAwait,
	"notification": cmdNotification,
	"reverse":      cmdReverse,
	"procs":        cmdProcs,
	"gone":         cmdGone,
	"tree-up":      cmdTreeUp,

	"writes":         cmdWrites,
	"one-of":         cmdOneOf,
	"kill-mid-write": cmdKillMidWrite,
	"old-or-new":     cmdOldOrNew,
	"bom-crlf":       cmdBOMCRLF,
}

func sess(ts *testscript.TestScript) *session { return ts.Value(sessionKey{}).(*session) }

func cmdSidecar(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: sidecar start|start-mcp|close|kill|wait|stderr")
	}
	s := sess(ts)
	switch args[0] {
	case "start":
		s.spawn(ts, args[1:])
		s.next(ts, func(f map[string]json.RawMessage) bool { return methodOf(f) == "lifecycle.ready" && f["id"] == nil })
	case "start-mcp":
		s.spawn(ts, append([]string{"mcp"}, args[1:]...))
	case "close":
		s.stdin.Close()
	case "kill":
		ts.Check(s.cmd.Process.Kill())
	case "wait":
		select {
		case <-s.exited:
		case <-time.After(waitTimeout):
			ts.Fatalf("sidecar did not exit within %v", waitTimeout)
		}
		if s.stuck {
			ts.Fatalf("the sidecar exited but its stdout stayed open: a process it started (or Wine's) holds the pipe")
		}
		code := s.cmd.ProcessState.ExitCode()
		fmt.Fprintf(ts.Stdout(), "exit %d\n", code)
		if (code != 0) != neg {
			ts.Fatalf("sidecar exited %d", code)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.bad) > 0 {
			ts.Fatalf("stdout carried non-frame lines: %q", s.bad)
		}
	case "stderr":
		time.Sleep(100 * time.Millisecond) // the log sink writes from a goroutine of its own
		s.mu.Lock()
		fmt.Fprint(ts.Stdout(), s.stderr.String())
		s.mu.Unlock()
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

// spawn starts the sidecar in $WORK. Its stdio are pipes of the test's
// own (os.Pipe: close-on-exec, so no other script's sidecar inherits
// them), and the parent's ends of the child's sides are closed at once.
func (s *session) spawn(ts *testscript.TestScript, args []string) {
	inR, inW, err := os.Pipe()
	ts.Check(err)
	outR, outW, err := os.Pipe()
	ts.Check(err)
	errR, errW, err := os.Pipe()
	ts.Check(err)
	cmd := exec.Command(s.wine.loader, append([]string{s.wine.sidecar}, args...)...)
	cmd.Dir = ts.Getenv("WORK")
	cmd.Env = s.env(ts)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	ts.Check(err)
	s.cmd, s.stdin = cmd, inW
	s.changed = sync.NewCond(&s.mu)
	exited := make(chan struct{})
	s.exited = exited
	stdoutDone := make(chan struct{})
	go func() { defer close(stdoutDone); s.readFrames(outR) }()
	go s.readStderr(errR)
	go func() {
		cmd.Wait()
		select {
		case <-stdoutDone:
		case <-time.After(10 * time.Second): // an exited process's pipe ends at once unless another holds it
			s.stuck = true
		}
		s.mu.Lock()
		s.changed.Broadcast()
		s.mu.Unlock()
		close(exited)
	}()
	ts.Defer(func() {
		cmd.Process.Kill()
		<-exited
		inW.Close()
		outR.Close()
		errR.Close()
	})
}

func (s *session) readFrames(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var f map[string]json.RawMessage
		s.mu.Lock()
		if json.Unmarshal(sc.Bytes(), &f) != nil || string(f["jsonrpc"]) != `"2.0"` {
			s.bad = append(s.bad, sc.Text())
		} else {
			s.frames = append(s.frames, f)
		}
		s.changed.Broadcast()
		s.mu.Unlock()
	}
}

func (s *session) readStderr(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		s.mu.Lock()
		s.stderr.WriteString(sc.Text() + "\n")
		s.mu.Unlock()
	}
}

// next removes and returns the first frame that match accepts, waiting for
// it up to waitTimeout.
func (s *session) next(ts *testscript.TestScript, match func(map[string]json.RawMessage) bool) map[string]json.RawMessage {
	deadline := time.Now().Add(waitTimeout)
	timer := time.AfterFunc(waitTimeout, func() { s.mu.Lock(); s.changed.Broadcast(); s.mu.Unlock() })
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for i, f := range s.frames {
			if match(f) {
				s.frames = append(s.frames[:i:i], s.frames[i+1:]...)
				return f
			}
		}
		select {
		case <-s.exited:
			ts.Fatalf("sidecar exited (%v) before the expected frame arrived; stderr:\n%s", s.cmd.ProcessState, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			ts.Fatalf("expected frame did not arrive within %v; unconsumed frames: %.2000s", waitTimeout, fmt.Sprint(s.frames))
		}
		s.changed.Wait()
	}
}

func (s *session) write(ts *testscript.TestScript, line string) {
	if s.stdin == nil {
		ts.Fatalf("no sidecar started")
	}
	_, err := io.WriteString(s.stdin, line+"\n")
	ts.Check(err)
}

func methodOf(f map[string]json.RawMessage) string {
	var m string
	json.Unmarshal(f["method"], &m)
	return m
}

// printJSON prints v with object keys sorted at every level, so scripts
// can match whole fragments whatever order the sidecar wrote them in.
func printJSON(ts *testscript.TestScript, v any) {
	b, _ := json.Marshal(v)
	var canon any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	ts.Check(dec.Decode(&canon))
	b, _ = json.Marshal(canon)
	fmt.Fprintf(ts.Stdout(), "%s\n", b)
}

// idJSON turns a script id into its JSON form: numbers stay numbers,
// anything else is a string.
func idJSON(id string) string {
	if _, err := strconv.ParseUint(id, 10, 63); err == nil || id == "null" {
		return id
	}
	return strconv.Quote(id)
}

func cmdSend(ts *testscript.TestScript, neg bool, args []string) {
	sess(ts).write(ts, strings.Join(args, " "))
}

func cmdRPC(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: rpc ID METHOD ['PARAMS']")
	}
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, idJSON(args[0]), args[1])
	if len(args) == 3 {
		line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, idJSON(args[0]), args[1], args[2])
	}
	sess(ts).write(ts, line)
	cmdAwait(ts, neg, args[:1])
}

func cmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: await ID")
	}
	want := idJSON(args[0])
	f := sess(ts).next(ts, func(f map[string]json.RawMessage) bool {
		return f["method"] == nil && strings.TrimSpace(string(f["id"])) == want
	})
	printJSON(ts, f)
}

func cmdNotification(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: notification METHOD")
	}
	f := sess(ts).next(ts, func(f map[string]json.RawMessage) bool { return f["id"] == nil && methodOf(f) == args[0] })
	printJSON(ts, f["params"])
}

// cmdReverse answers a sidecar → host request with a result.
func cmdReverse(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: reverse METHOD 'RESULT'")
	}
	s := sess(ts)
	f := s.next(ts, func(f map[string]json.RawMessage) bool { return f["id"] != nil && methodOf(f) == args[0] })
	printJSON(ts, f["params"])
	s.write(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, f["id"], args[1]))
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
