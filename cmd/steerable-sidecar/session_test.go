package main

// The live-session commands of the end-to-end scripts. A script plays the
// host: it starts the real binary, writes frames, and matches replies by id.
//
//	sidecar start [flags]     start `steerable-sidecar` with the script's env; wait for lifecycle.ready
//	sidecar start-unread [flags]
//	                          the same, with a stderr pipe nobody ever reads (a host that forgot it)
//	send 'JSON'               write one raw line to its stdin
//	rpc ID METHOD ['PARAMS']  send a request and print its reply (match it with `stdout`)
//	calls N TOOL 'ARGS'       invoke TOOL N times, one call at a time; each must succeed; prints "N calls ok"
//	await ID                  print the reply to an earlier `send` with that id
//	notification METHOD       print the params of the next such notification
//	reverse METHOD 'RESULT'   wait for a sidecar → host request, print its params, answer RESULT
//	reverse-error METHOD CODE MESSAGE
//	                          the same, answering a JSON-RPC error
//	reverse-quiet METHOD      the same, never answering (a host that went quiet)
//	sidecar close             close its stdin (EOF)
//	sidecar signal SIG        send TERM, INT or KILL
//	sidecar wait              wait for it to exit; prints "exit N"
//	sidecar stderr            print what it wrote to stderr so far
//	sidecar pid               set $SIDECAR_PID to its process id
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/exectest"
)

const waitTimeout = 60 * time.Second // a bound on failure: a loaded machine (race detector, two busy loops per core) must not trip it

type sessionKey struct{}

// session is one live sidecar of a script.
type session struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	exited  chan struct{}
	waitErr error

	mu      sync.Mutex
	changed *sync.Cond
	frames  []map[string]json.RawMessage // stdout frames not yet consumed
	stderr  strings.Builder
	bad     []string // stdout lines that were not JSON-RPC frames

	stdoutGate chan struct{} // non-nil: stdout is not read until it is closed (start-stalled)
	openStdout func()        // closes stdoutGate once
	flood      *flood        // the last flood's writer (flood_test.go)
}

func setupSession(env *testscript.Env) error {
	env.Values[sessionKey{}] = &session{}
	// The sidecar's state (the apply_patch journal) goes beside the
	// script's work directory, never under testscript's HOME (/no-home).
	env.Setenv("STEERABLE_STATE_DIR", env.WorkDir+".state")
	env.Setenv("MCP_NODE_MODULES", npmModules())
	env.Setenv("LSP_PATH", lspPath())
	// Language servers installed on this machine would add the lsp tool
	// to every script's list; the lsp_* scripts turn the defaults back on.
	env.Setenv("STEERABLE_LSP_DEFAULTS", "0")
	// The archive's files were written while other scripts start children;
	// a script that runs one (chmod 755, then exec) must not meet "text
	// file busy".
	if err := exectest.Renew(env.WorkDir); err != nil {
		return err
	}
	return watchRaces(env)
}

// watchRaces fails the script when a sidecar it started (with `sidecar
// start` or `exec`) reported a data race. Under -race a child exits 66 on
// one, but a script whose sidecar's stderr nobody reads, or that never
// checks the exit code, would lose the report: each goes to a file beside
// the work directory instead, and the script fails quoting it.
func watchRaces(env *testscript.Env) error {
	dir := env.WorkDir + ".race"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	env.Setenv("GORACE", "log_path="+filepath.Join(dir, "report"))
	env.Defer(func() {
		reports, _ := filepath.Glob(filepath.Join(dir, "report.*"))
		for _, r := range reports {
			b, _ := os.ReadFile(r)
			env.T().Log("a sidecar of this script reported a data race:\n" + string(b))
		}
		if len(reports) > 0 {
			env.T().FailNow()
		}
	})
	return nil
}

var sessionCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"sidecar":       cmdSidecar,
	"send":          cmdSend,
	"rpc":           cmdRPC,
	"calls":         cmdCalls,
	"await":         cmdAwait,
	"notification":  cmdNotification,
	"reverse":       cmdReverse,
	"reverse-error": cmdReverseError,
	"procs":         cmdProcs,
	"lspprocs":      cmdLSPProcs,
	"listen":        cmdListen,
	"reverse-quiet": cmdReverseQuiet,
	"mcp":           cmdMCP,

	"install-mcp-test-server": cmdInstallMCPTestServer,
	"npm-servers-hint":        cmdNPMServersHint,
	"stderr-has":              cmdStderrHas,
	"wait-tool":               cmdWaitTool,
	"media":                   cmdMedia,
	"image-block":             cmdImageBlock,
	"block-file":              cmdBlockFile,
	"flood":                   cmdFlood,
	"flood-wait":              cmdFloodWait,
	"rss-below":               cmdRSSBelow,
	"capture":                 cmdCapture,
	"wait-file":               cmdWaitFile,
}

func sess(ts *testscript.TestScript) *session { return ts.Value(sessionKey{}).(*session) }

func cmdSidecar(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: sidecar start|start-unread|start-closed|close|signal|wait [within]|stderr")
	}
	s := sess(ts)
	switch args[0] {
	case "start":
		s.start(ts, args[1:], stderrRead)
	case "start-unread":
		s.start(ts, args[1:], stderrUnread)
	case "start-closed":
		s.start(ts, args[1:], stderrClosed)
	case "start-stalled": // stdout unread until `sidecar read-stdout`
		s.startStalled(ts, args[1:])
	case "read-stdout":
		s.openStdout()
	case "close":
		s.stdin.Close()
	case "signal":
		sig := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "KILL": syscall.SIGKILL}[args[1]]
		if sig == 0 {
			ts.Fatalf("unknown signal %q", args[1])
		}
		ts.Check(s.cmd.Process.Signal(sig))
	case "wait": // sidecar wait [within]: exit within a bound (default waitTimeout)
		within := waitTimeout
		if len(args) > 1 {
			d, err := time.ParseDuration(args[1])
			ts.Check(err)
			within = d
		}
		select {
		case <-s.exited:
		case <-time.After(within):
			ts.Fatalf("sidecar did not exit within %v", within)
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
		fmt.Fprint(ts.Stdout(), s.settledStderr())
	case "pid":
		ts.Setenv("SIDECAR_PID", strconv.Itoa(s.cmd.Process.Pid))
	default:
		ts.Fatalf("unknown sidecar subcommand %q", args[0])
	}
}

// scriptEnv is the script's environment as the sidecar should see it: the
// basics plus every variable the sidecar knows.
func scriptEnv(ts *testscript.TestScript) []string {
	names := []string{"PATH", "HOME", "TMPDIR", "WORK", "LANG", "GORACE"}
	for _, v := range config.Vars() {
		names = append(names, v.Name)
	}
	var env []string
	for _, n := range names {
		if v := ts.Getenv(n); v != "" {
			env = append(env, n+"="+v)
		}
	}
	for _, extra := range strings.Fields(ts.Getenv("SIDECAR_EXTRA_ENV")) {
		if v := ts.Getenv(extra); v != "" {
			env = append(env, extra+"="+v)
		}
	}
	return env
}

// stderrMode is what the script's host does with the sidecar's stderr.
type stderrMode int

const (
	stderrRead   stderrMode = iota // read into s.stderr
	stderrUnread                   // a pipe never read: once full, every write blocks
	stderrClosed                   // a pipe whose read end is closed: every write fails (EPIPE)
)

// start starts the sidecar with its stderr handled as mode says.
func (s *session) start(ts *testscript.TestScript, args []string, mode stderrMode) {
	s.stdoutGate = nil
	from := s.spawn(ts, ts.Getenv("WORK"), args, mode)
	s.next(ts, func(f map[string]json.RawMessage) bool { return methodOf(f) == "lifecycle.ready" && f["id"] == nil })
	if mode == stderrRead && !slices.Contains(args, "--quiet-ready") {
		s.waitStderr(ts, from, "__SIDECAR_READY__:")
	}
}

// spawn starts the binary in dir with the script's environment, its stdout
// read as frames and its stderr handled as mode says; from is where this
// process's stderr starts in s.stderr.
func (s *session) spawn(ts *testscript.TestScript, dir string, args []string, mode stderrMode) (from int) {
	s.cmd = exec.Command(lookPath(ts, ts.Getenv("PATH")), args...)
	s.cmd.Dir = dir
	s.cmd.Env = scriptEnv(ts)
	asUnprivileged(ts, s.cmd)
	s.changed = sync.NewCond(&s.mu)
	s.exited = make(chan struct{})
	stdin, err := s.cmd.StdinPipe()
	ts.Check(err)
	stdout, err := s.cmd.StdoutPipe()
	ts.Check(err)
	stderr, err := s.cmd.StderrPipe()
	ts.Check(err)
	s.stdin = stdin
	s.mu.Lock()
	from = s.stderr.Len() // a second start must wait for its own marker
	s.mu.Unlock()
	ts.Check(s.cmd.Start())
	var readers sync.WaitGroup
	readers.Add(1)
	go func() { defer readers.Done(); s.readFrames(stdout) }()
	switch mode {
	case stderrRead:
		readers.Add(1)
		go func() { defer readers.Done(); s.readStderr(stderr) }()
	case stderrClosed:
		stderr.Close()
	default:
		// Held open and never read; closed when the script ends (the
		// process is gone by then: Wait below reaps it).
		ts.Defer(func() { stderr.Close() })
	}
	cmd, exited, changed := s.cmd, s.exited, s.changed // a later start replaces s's fields
	go func() {
		readers.Wait()
		err := cmd.Wait()
		s.mu.Lock()
		s.waitErr = err
		changed.Broadcast()
		s.mu.Unlock()
		close(exited)
	}()
	ts.Defer(func() {
		cmd.Process.Kill()
		<-exited
	})
	return from
}

// waitStderr waits until stderr, from byte from on, holds substr: stdout
// and stderr are read by separate goroutines, so lifecycle.ready can arrive
// before the marker line (and an earlier sidecar of the script wrote one
// too).
func (s *session) waitStderr(ts *testscript.TestScript, from int, substr string) {
	deadline := time.Now().Add(waitTimeout)
	timer := time.AfterFunc(waitTimeout, func() { s.mu.Lock(); s.changed.Broadcast(); s.mu.Unlock() })
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !strings.Contains(s.stderr.String()[from:], substr) {
		if time.Now().After(deadline) {
			ts.Fatalf("stderr has no %q within %v", substr, waitTimeout)
		}
		s.changed.Wait()
	}
}

// settledStderr is stderr once no byte has come for stderrSettle (for at
// most a second): the sidecar's log sink writes from a goroutine of its
// own, so a reply can arrive before the line its call logged. A script
// that must see one line waits for it with stderr-has.
func (s *session) settledStderr() string {
	deadline := time.Now().Add(time.Second)
	for {
		s.mu.Lock()
		n := s.stderr.Len()
		s.mu.Unlock()
		time.Sleep(stderrSettle)
		s.mu.Lock()
		out := s.stderr.String()
		s.mu.Unlock()
		if len(out) == n || time.Now().After(deadline) {
			return out
		}
	}
}

const stderrSettle = 50 * time.Millisecond

func lookPath(ts *testscript.TestScript, pathList string) string {
	for _, dir := range strings.Split(pathList, ":") {
		p := dir + "/steerable-sidecar"
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	ts.Fatalf("steerable-sidecar not on the script's PATH")
	return ""
}

func (s *session) readFrames(r io.Reader) {
	if s.stdoutGate != nil {
		<-s.stdoutGate
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
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
		s.changed.Broadcast()
		s.mu.Unlock()
	}
}

// next removes and returns the first frame that match accepts, waiting for
// it up to waitTimeout.
func (s *session) next(ts *testscript.TestScript, match func(map[string]json.RawMessage) bool) map[string]json.RawMessage {
	f := s.nextWithin(ts, waitTimeout, match)
	if f == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		ts.Fatalf("expected frame did not arrive within %v; unconsumed frames: %d", waitTimeout, len(s.frames))
	}
	return f
}

// nextWithin is next with its own bound; nil when the frame did not arrive
// in time.
func (s *session) nextWithin(ts *testscript.TestScript, wait time.Duration, match func(map[string]json.RawMessage) bool) map[string]json.RawMessage {
	deadline := time.Now().Add(wait)
	timer := time.AfterFunc(wait, func() { s.mu.Lock(); s.changed.Broadcast(); s.mu.Unlock() })
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
			ts.Fatalf("sidecar exited (%v) before the expected frame arrived; stderr:\n%s", s.waitErr, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			return nil
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

// printJSON prints v with object keys sorted at every level, so scripts can
// match whole fragments whatever order the sidecar wrote them in.
func printJSON(ts *testscript.TestScript, v any) {
	b, _ := json.Marshal(v)
	var canon any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	ts.Check(dec.Decode(&canon))
	b, _ = json.Marshal(canon)
	fmt.Fprintf(ts.Stdout(), "%s\n", b)
}

func cmdSend(ts *testscript.TestScript, neg bool, args []string) {
	sess(ts).write(ts, strings.Join(args, " "))
}

// idJSON turns a script id into its JSON form: numbers stay numbers,
// anything else is a string.
func idJSON(id string) string {
	if _, err := strconv.ParseUint(id, 10, 63); err == nil || id == "null" {
		return id
	}
	return strconv.Quote(id)
}

func (s *session) awaitReply(ts *testscript.TestScript, id string) {
	want := idJSON(id)
	f := s.next(ts, func(f map[string]json.RawMessage) bool {
		return f["method"] == nil && compactEq(f["id"], want)
	})
	printJSON(ts, f)
}

func compactEq(raw json.RawMessage, want string) bool {
	return strings.TrimSpace(string(raw)) == want
}

func cmdRPC(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: rpc ID METHOD ['PARAMS']")
	}
	s := sess(ts)
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, idJSON(args[0]), args[1])
	if len(args) == 3 {
		line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, idJSON(args[0]), args[1], args[2])
	}
	s.write(ts, line)
	s.awaitReply(ts, args[0])
}

// cmdCalls invokes a tool N times in sequence, failing at the first call
// that is not answered with success:true (naming how many were).
func cmdCalls(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: calls N TOOL 'ARGS'")
	}
	sess(ts).callMany(ts, args[0], func(id string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tool.invoke","params":{"name":%q,"arguments":%s}}`, id, args[1], args[2])
	}, func(result json.RawMessage) bool {
		var res struct {
			Success bool `json:"success"`
		}
		return json.Unmarshal(result, &res) == nil && res.Success
	})
}

// callMany sends n requests (frame builds each from its id), one at a
// time; each must be answered within 5s with a result ok accepts.
func (s *session) callMany(ts *testscript.TestScript, count string, frame func(id string) string, ok func(json.RawMessage) bool) {
	n, err := strconv.Atoi(count)
	ts.Check(err)
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("call-%d", i)
		s.write(ts, frame(id))
		f := s.nextWithin(ts, 5*time.Second, func(f map[string]json.RawMessage) bool {
			return f["method"] == nil && compactEq(f["id"], strconv.Quote(id))
		})
		if f == nil {
			ts.Fatalf("call %d of %d not answered within 5s: %d calls completed", i, n, i-1)
		}
		if !ok(f["result"]) {
			ts.Fatalf("call %d of %d: %s", i, n, f["result"])
		}
	}
	fmt.Fprintf(ts.Stdout(), "%d calls ok\n", n)
}

func cmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: await ID")
	}
	sess(ts).awaitReply(ts, args[0])
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
	id := sess(ts).takeReverse(ts, args[0])
	sess(ts).write(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, args[1]))
}

// cmdReverseError answers a sidecar → host request with an error.
func cmdReverseError(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: reverse-error METHOD CODE MESSAGE")
	}
	id := sess(ts).takeReverse(ts, args[0])
	sess(ts).write(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%s,"message":%q}}`, id, args[1], args[2]))
}

// cmdReverseQuiet takes a sidecar → host request and never answers it.
func cmdReverseQuiet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: reverse-quiet METHOD")
	}
	sess(ts).takeReverse(ts, args[0])
}

// takeReverse waits for a reverse request, prints its params and returns its
// id.
func (s *session) takeReverse(ts *testscript.TestScript, method string) json.RawMessage {
	f := s.next(ts, func(f map[string]json.RawMessage) bool { return f["id"] != nil && methodOf(f) == method })
	printJSON(ts, f["params"])
	return f["id"]
}

// cmdWaitFile waits until the file exists: a script waits for what a
// command it started has finished, instead of racing it with a timeout.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: wait-file PATH")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(waitTimeout); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not appear within %v", args[0], waitTimeout)
		}
	}
}
