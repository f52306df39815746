package main

// The live-session commands of the end-to-end scripts. A script plays the
// host: it starts the real binary, writes frames, and matches replies by
// id. Besides scripttest's send, rpc, await, notification and reverse:
//
//	sidecar start [flags]     start `steerable-sidecar` with the script's env; wait for lifecycle.ready
//	sidecar start-unread [flags]
//	                          the same, with a stderr pipe nobody ever reads (a host that forgot it)
//	calls N TOOL 'ARGS'       invoke TOOL N times, one call at a time; each must succeed; prints "N calls ok"
//	reverse-error METHOD CODE MESSAGE
//	                          like reverse, answering a JSON-RPC error
//	reverse-quiet METHOD      like reverse, never answering (a host that went quiet)
//	sidecar close             close its stdin (EOF)
//	sidecar signal SIG        send TERM, INT or KILL
//	sidecar wait              wait for it to exit; prints "exit N"
//	sidecar stderr            print what it wrote to stderr so far
//	sidecar pid               set $SIDECAR_PID to its process id
//
// Every wait is bounded (waitTimeout), so a broken sidecar fails the script
// instead of hanging it.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/exectest"
	"steerable.dev/sidecar/internal/scripttest"
)

const waitTimeout = 60 * time.Second // a bound on failure: a loaded machine (race detector, two busy loops per core) must not trip it

type sessionKey struct{}

// session is the live sidecar of a script.
type session struct {
	*scripttest.Session

	stdoutGate chan struct{} // non-nil: stdout is not read until it is closed (start-stalled)
	openStdout func()        // closes stdoutGate once
	flood      *flood        // the last flood's writer (flood_test.go)
}

func setupSession(env *testscript.Env) error {
	env.Values[sessionKey{}] = &session{Session: scripttest.New(waitTimeout)}
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

var sessionCmds = scripttest.Commands(map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"sidecar":       cmdSidecar,
	"calls":         cmdCalls,
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
}, func(ts *testscript.TestScript) *scripttest.Session { return sess(ts).Session })

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
		s.Stdin.Close()
	case "signal":
		sig := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "KILL": syscall.SIGKILL}[args[1]]
		if sig == 0 {
			ts.Fatalf("unknown signal %q", args[1])
		}
		ts.Check(s.Cmd.Process.Signal(sig))
	case "wait": // sidecar wait [within]: exit within a bound (default waitTimeout)
		within := waitTimeout
		if len(args) > 1 {
			d, err := time.ParseDuration(args[1])
			ts.Check(err)
			within = d
		}
		s.Wait(ts, neg, within)
	case "stderr":
		fmt.Fprint(ts.Stdout(), s.settledStderr())
	case "pid":
		ts.Setenv("SIDECAR_PID", strconv.Itoa(s.Cmd.Process.Pid))
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
	stderrRead   stderrMode = iota // read into the session (s.Stderr)
	stderrUnread                   // a pipe never read: once full, every write blocks
	stderrClosed                   // a pipe whose read end is closed: every write fails (EPIPE)
)

// start starts the sidecar with its stderr handled as mode says.
func (s *session) start(ts *testscript.TestScript, args []string, mode stderrMode) {
	s.stdoutGate = nil
	from := s.spawn(ts, ts.Getenv("WORK"), args, mode)
	s.Next(ts, scripttest.Notification("lifecycle.ready"))
	if mode == stderrRead && !slices.Contains(args, "--quiet-ready") {
		s.waitStderr(ts, from, "__SIDECAR_READY__:")
	}
}

// spawn starts the binary in dir with the script's environment, its stdout
// read as frames and its stderr handled as mode says; from is where this
// process's stderr starts in s.Stderr.
func (s *session) spawn(ts *testscript.TestScript, dir string, args []string, mode stderrMode) (from int) {
	cmd := exec.Command(lookPath(ts, ts.Getenv("PATH")), args...)
	cmd.Dir = dir
	cmd.Env = scriptEnv(ts)
	asUnprivileged(ts, cmd)
	return s.Start(ts, cmd, scripttest.Stdio{StdoutGate: s.stdoutGate, Stderr: mode.host(ts)})
}

// host is what the script's host does with the read end of the sidecar's
// stderr; nil: the session reads it.
func (m stderrMode) host(ts *testscript.TestScript) func(*os.File) {
	switch m {
	case stderrClosed:
		return func(r *os.File) { r.Close() }
	case stderrUnread:
		// Held open and never read; closed when the script ends (after
		// the sidecar is killed and reaped).
		return func(r *os.File) { ts.Defer(func() { r.Close() }) }
	}
	return nil
}

// waitStderr waits until stderr, from byte from on, holds substr: stdout
// and stderr are read by separate goroutines, so lifecycle.ready can arrive
// before the marker line (and an earlier sidecar of the script wrote one
// too).
func (s *session) waitStderr(ts *testscript.TestScript, from int, substr string) {
	if !s.AwaitStderr(waitTimeout, func(stderr string) bool { return strings.Contains(stderr[from:], substr) }) {
		ts.Fatalf("stderr has no %q within %v", substr, waitTimeout)
	}
}

// settledStderr is stderr once no byte has come for stderrSettle (for at
// most a second): the sidecar's log sink writes from a goroutine of its
// own, so a reply can arrive before the line its call logged. A script
// that must see one line waits for it with stderr-has.
func (s *session) settledStderr() string {
	deadline := time.Now().Add(time.Second)
	for {
		n := len(s.Stderr())
		time.Sleep(stderrSettle)
		out := s.Stderr()
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
		s.Write(ts, frame(id))
		f := s.NextWithin(ts, 5*time.Second, scripttest.ReplyTo(strconv.Quote(id)))
		if f == nil {
			ts.Fatalf("call %d of %d not answered within 5s: %d calls completed", i, n, i-1)
		}
		if !ok(f["result"]) {
			ts.Fatalf("call %d of %d: %s", i, n, f["result"])
		}
	}
	fmt.Fprintf(ts.Stdout(), "%d calls ok\n", n)
}

// cmdReverseError answers a sidecar → host request with an error.
func cmdReverseError(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: reverse-error METHOD CODE MESSAGE")
	}
	s := sess(ts)
	id := s.TakeReverse(ts, args[0])
	s.Write(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%s,"message":%q}}`, id, args[1], args[2]))
}

// cmdReverseQuiet takes a sidecar → host request and never answers it.
func cmdReverseQuiet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: reverse-quiet METHOD")
	}
	sess(ts).TakeReverse(ts, args[0])
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
