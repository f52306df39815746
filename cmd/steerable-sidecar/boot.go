package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/checkpoint"
	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/imaging"
	"steerable.dev/sidecar/internal/logsink"
	"steerable.dev/sidecar/internal/lsp"
	"steerable.dev/sidecar/internal/plugins"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/runcode"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/internal/todo"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/protocol"
)

// app is one booted sidecar: configuration, logger, registry and dispatcher,
// shared by serve, call and tools.
type app struct {
	cfg        config.Config
	log        zerolog.Logger
	logs       *logsink.Sink // stderr behind the logger, shared with the ready line
	registry   *tools.Registry
	dispatcher *tools.Dispatcher
	checks     map[string]protocol.Check
	sandbox    *sandbox.Sandbox
	askUser    tools.AskUserHandler // nil: ask the host; call sets the terminal prompt
	strict     bool                 // posture: misconfiguration exits 2 instead of degrading
	webFetcher *web.Fetcher         // nil when the web pair is off
	files      *files.Workspace     // the file tools' view of the workspace
	readState  *readstate.Store     // the session's read state (read_state.seed/get)
	plugins    *plugins.Manager     // nil when no plugin source is configured
	lsp        *lsp.Manager         // the language servers; nil before buildTools
	// pluginGrace is how long each step of stopping the plugins at exit
	// may take (serve sets 0 after shutdown_now or a signal).
	pluginGrace time.Duration
	runCode     *runcode.Runtime // nil when run_code is not configured

	checkpoints *checkpoint.Store   // the workspace's change log; nil when off or not opened
	undo        *checkpoint.Service // checkpoint.* and tool.undo over it; nil likewise

	sessions *shellsession.Manager // bash_session's shells; nil when not registered
	todos    *todo.Store           // todo_write's lists (todo.list)

	sessionDir *sessionDir   // the sandbox's temp dir, created during boot
	closing    chan struct{} // closed by close: a deferred probe does not start
}

// extraTools is set only by the end-to-end test binary, to register tools
// that exercise the protocol; release builds never set it.
var extraTools func(tools.Deps) []tools.Tool

// filesFault is set only by the end-to-end test binary, to crash it at a
// chosen step of a write (files.WithFault); release builds never set it.
var filesFault func(step, name string) error

// bootError is a failure that stops the process with exit 2.
type bootError struct{ msg string }

func (e *bootError) Error() string { return e.msg }

// logFlushWait bounds how long exit waits for queued log lines: a host that
// never reads stderr must not keep the process alive.
const logFlushWait = 300 * time.Millisecond

// logTimeOnce sets zerolog's one global, the time format, once: mcp builds
// a second logger in its background boot while the first is logging.
var logTimeOnce sync.Once

// newLogger builds the stderr logger; stdout never carries logs. Lines go
// through a logsink.Sink, so a host that never reads stderr loses log lines
// (counted), never replies.
func newLogger(stderr io.Writer, level, format string) (zerolog.Logger, *logsink.Sink, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Logger{}, nil, fmt.Errorf("--log-level %q: use trace, debug, info, warn or error", level)
	}
	var render func(io.Writer) io.Writer
	switch format {
	case "json":
	case "console":
		render = func(w io.Writer) io.Writer {
			return zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: "15:04:05.000"}
		}
	default:
		return zerolog.Logger{}, nil, fmt.Errorf("--log-format %q: use json or console", format)
	}
	// The wire's format: the console format shows the same resolution,
	// parsed from this field.
	logTimeOnce.Do(func() { zerolog.TimeFieldFormat = protocol.TimeFormat })
	sink := logsink.New(stderr, logsink.DefaultLimit, render)
	return zerolog.New(sink).Level(lvl).With().Timestamp().Logger(), sink, nil
}

// boot loads the configuration in the given posture and resolves the
// workspace; the caller then builds the tools with its Host. strict: any
// invalid variable is a bootError naming it; otherwise each problem is logged
// and its feature degraded (SPEC §4.3).
func boot(flags commonFlags, strict bool, stderr io.Writer) (_ *app, err error) {
	tmp := createSessionDir(os.TempDir()) // first: the mkdir overlaps the rest of boot
	defer func() {
		if err != nil {
			tmp.discard()
		}
	}()
	log, logs, err := newLogger(stderr, flags.logLevel, flags.logFormat)
	if err != nil {
		return nil, &bootError{err.Error()}
	}
	defer func() {
		if err != nil {
			logs.Close(logFlushWait) // what was logged comes before the caller's message
		}
	}()
	environ := config.Environ()
	cfg, problems := config.Load(environ)
	if err := config.FatalError(config.Fatal(problems, strict)); err != nil {
		return nil, &bootError{err.Error()}
	}
	a := &app{cfg: cfg, log: log, logs: logs, checks: map[string]protocol.Check{}, strict: strict, pluginGrace: pluginStopGrace,
		closing: make(chan struct{})}
	a.degrade(problems)
	if flags.noWebTools {
		a.cfg.Web.Disabled = "--no-web-tools"
	}
	cwd, err := config.ExpandPath(flags.cwd, environ)
	if err != nil {
		return nil, &bootError{"--cwd: " + err.Error()}
	}
	ws, err := workspace(cwd, string(cfg.Workspace))
	if err != nil {
		return nil, &bootError{err.Error()}
	}
	if err := workspaceAllowed(cfg, ws); err != nil {
		return nil, &bootError{err.Error()}
	}
	a.cfg.Workspace = config.Path(ws)
	if err := a.openSandbox(tmp); err != nil {
		return nil, &bootError{err.Error()}
	}
	return a, nil
}

// degrade applies the serve posture to the problems that did not stop the
// boot: every one is logged, a bad web variable leaves the web pair out
// (checks.web = error), any other bad variable falls back to its default,
// and an unknown STEERABLE_ name is a warning with the nearest real one
// (both checks.config = warn). Each log line says which happened.
func (a *app) degrade(problems []config.Problem) {
	a.checks["config"] = protocol.Check{Status: protocol.CheckOK, Message: "configuration valid"}
	var other, web []string
	for _, p := range problems {
		if p.Unknown {
			a.log.Warn().Str("var", p.Var).Str("suggestion", p.Suggestion).Msg("unknown variable ignored: " + p.Error())
			other = append(other, p.Error())
			continue
		}
		ev := a.log.Error().Str("var", p.Var).Str("value", p.Value).Str("allowed", p.Allowed)
		if p.Feature == "web" {
			ev.Msg("invalid configuration value; web_fetch and web_search are not registered")
			web = append(web, p.Error())
		} else {
			ev.Str("default", p.Default).Msg("invalid configuration value; using the default")
			other = append(other, p.Error()+" (default used)")
		}
	}
	if len(other) > 0 {
		sort.Strings(other)
		a.checks["config"] = protocol.Check{Status: protocol.CheckWarn, Message: strings.Join(other, "; ")}
	}
	if len(web) > 0 {
		a.cfg.Web.Disabled = "invalid configuration: " + strings.Join(web, "; ")
		a.checks["web"] = protocol.Check{Status: protocol.CheckError, Message: "web tools not registered: " + strings.Join(web, "; ")}
	}
}

// workspace resolves the workspace root: --cwd, else STEERABLE_WORKSPACE,
// else the process cwd; absolute, symlinks resolved, and a directory.
func workspace(flagCwd, envWorkspace string) (string, error) {
	dir := flagCwd
	if dir == "" {
		dir = envWorkspace
	}
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("workspace: %v", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("workspace %q: %v; pass an existing directory with --cwd or STEERABLE_WORKSPACE", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("workspace %q is not a directory; pass one with --cwd or STEERABLE_WORKSPACE", dir)
	}
	if filepath.Dir(abs) == abs {
		return "", fmt.Errorf("the workspace would be the filesystem root %s, which hands the model the whole disk: "+
			"pass a project directory with --cwd or STEERABLE_WORKSPACE", abs)
	}
	return abs, nil
}

// workspaceAllowed refuses a workspace that is, or lies inside, a
// credential store of the deny list, by the list as configured ($HOME as
// set and resolved; no other system call, so start-up does not wait for
// the full resolution). Where only the resolved list finds it (a symlink
// on the way), the sandbox refuses every command and the file tools every
// path instead.
func workspaceAllowed(cfg config.Config, ws string) error {
	o := denyOptions(cfg)
	if real, err := filepath.EvalSymlinks(o.Home); err == nil && real != o.Home {
		o.UserHome = real
	}
	return sandbox.WorkspaceProblem(sandbox.LexicalDeny(o), nil, ws)
}

// buildTools registers the built-ins and builds the dispatcher. host is the
// reverse channel: the rpc Peer when serving, tools.NoHost for the CLI.
func (a *app) buildTools(host tools.Host) error {
	a.registry = tools.NewRegistry()
	if err := a.openFiles(); err != nil {
		return err
	}
	deps := tools.Deps{Host: host, Log: a.log, Registry: a.registry,
		Sandbox:          a.sandbox,
		BashMaxTimeoutMs: int(a.cfg.BashMaxTimeoutMs), BashMaxOutputBytes: int(a.cfg.BashMaxOutputBytes),
		Files: a.files, ReadState: a.readState, RequireReadBeforeWrite: a.cfg.RequireReadBeforeWrite, FileMaxBytes: int64(a.cfg.FileMaxBytes),
		SearchIgnore: a.cfg.SearchIgnore,
		Media:        tools.MediaOptions{Image: imaging.Limits{MaxEdge: a.cfg.ImageMaxEdge, MaxBytes: int(a.cfg.ImageMaxBytes)}, PDFDocument: a.cfg.PDFDocument}}
	a.wireAskUser(&deps)
	a.wireTodos(&deps, host)
	a.openSessions(&deps)
	if err := a.buildWeb(&deps, host); err != nil {
		return err
	}
	var approver tools.Approver
	if a.cfg.Approvals == "host" {
		approver = host
	}
	a.dispatcher = tools.NewDispatcher(a.registry, approver, a.log)
	if a.checkpoints != nil {
		a.dispatcher.NoteCommands(a.checkpoints) // a restore says when commands ran since
	}
	deps.Dispatcher = a.dispatcher // run_code's nested calls
	a.wireRunCode(&deps)
	builtins := tools.Builtins(deps)
	if extraTools != nil {
		builtins = append(builtins, extraTools(deps)...)
	}
	builtins = a.wireLSP(builtins)
	if err := a.registry.Register(protocol.SourceBuiltin, builtins...); err != nil {
		panic("built-in tools: " + err.Error()) // a programming error, not a configuration one
	}
	a.watchRunCode()
	if _, err := a.sessionDir.wait(); err != nil { // before any plugin starts in it
		return &bootError{err.Error()}
	}
	return a.loadPlugins(host)
}

// wireAskUser gives ask_user its handler (the host's ask_user.request unless
// the command injected another) and its timeout, and reports both.
func (a *app) wireAskUser(deps *tools.Deps) {
	deps.AskUser = a.askUser
	deps.AskUserTimeout = time.Duration(a.cfg.AskUserTimeoutMs) * time.Millisecond
	route := "questions go to the host (ask_user.request)"
	if a.askUser != nil {
		route = "questions prompt on the terminal"
	}
	wait := "waits for the answers"
	if a.cfg.AskUserTimeoutMs > 0 {
		wait = fmt.Sprintf("waits at most %d ms", a.cfg.AskUserTimeoutMs)
	}
	a.checks["ask_user"] = protocol.Check{Status: protocol.CheckOK, Message: route + "; " + wait}
}

// healthChecks returns the checks for Health. With settle it waits for
// checks still being established at boot (the sandbox probe); without, it
// reports them as pending (the ready marker must not wait).
func (a *app) healthChecks(settle bool) map[string]protocol.Check {
	out := make(map[string]protocol.Check, len(a.checks)+2)
	for k, v := range a.checks {
		out[k] = v
	}
	if a.plugins != nil {
		out["plugins"] = a.plugins.Check()
	}
	if _, set := out["lsp"]; !set && a.lsp != nil {
		out["lsp"] = a.lsp.Check()
	}
	if a.sandbox != nil {
		if settle {
			a.sandbox.StartProbe() // serve starts it after ready; a ping may come first
			<-a.sandbox.Selected()
		}
		select {
		case <-a.sandbox.Selected():
			out["sandbox"] = sandboxCheck(a.sandbox)
		default:
			out["sandbox"] = protocol.Check{Status: protocol.CheckWarn, Message: "probing sandbox backends (they start once the sidecar is ready)"}
		}
	}
	if a.runCode != nil {
		if settle {
			a.runCode.Start() // as the sandbox probe: a ping may come before ready's
			<-a.runCode.Checked()
		}
		out["run_code"] = runCodeCheck(a.runCode)
	}
	return out
}

// openFiles opens the workspace for the file tools and the session's read
// state, and rolls back what a crash left of an apply_patch.
func (a *app) openFiles() error {
	opts := []files.Option{}
	journal, journalMsg := journalRoot(string(a.cfg.StateDir), string(a.cfg.Workspace))
	if journal != "" {
		opts = append(opts, files.WithJournal(journal))
	}
	if filesFault != nil {
		opts = append(opts, files.WithFault(filesFault))
	}
	opts = append(opts, a.openCheckpoints()...)
	opts = append(opts, files.WithDeny(func() []files.DenyEntry {
		var out []files.DenyEntry
		for _, e := range a.sandbox.DenyEntries() {
			out = append(out, files.DenyEntry{Path: e.Path, Name: e.Name})
		}
		return out
	}))
	ws, err := files.Open(string(a.cfg.Workspace), a.cfg.WorkspaceConfine, opts...)
	if err != nil {
		a.closeCheckpoints()
		return &bootError{err.Error()}
	}
	a.files, a.readState = ws, readstate.NewStore()
	a.undo = a.checkpointService()
	msg := "workspace " + ws.Dir() + ", paths confined to it"
	if !ws.Confined() {
		msg = "workspace " + ws.Dir() + ", confinement off (STEERABLE_WORKSPACE_CONFINE=0)"
	}
	if !a.cfg.RequireReadBeforeWrite {
		msg += "; read-before-write gate off (STEERABLE_REQUIRE_READ_BEFORE_WRITE=0)"
	}
	status := protocol.CheckOK
	if journal == "" {
		status = protocol.CheckWarn
		a.log.Warn().Msg(journalMsg)
	}
	a.checks["files"] = protocol.Check{Status: status, Message: msg + "; " + journalMsg}
	a.recoverPatches()
	return nil
}

// close releases what boot acquired; the plugins go first, their temp
// dirs live in the sandbox's.
func (a *app) close() {
	close(a.closing)
	a.closePlugins(a.pluginGrace)
	a.closeLSP(a.pluginGrace)
	if a.files != nil {
		a.files.Close()
	}
	a.closeCheckpoints() // after the workspace: no write records into it any more
	if a.webFetcher != nil {
		a.webFetcher.Close()
	}
	if a.sessions != nil {
		a.sessions.Close() // every shell and what it started, before the sandbox goes
	}
	if a.sandbox != nil {
		if err := a.sandbox.Close(); err != nil {
			a.log.Warn().Err(err).Msg("removing the session temp dir")
		}
	}
	a.logs.Close(logFlushWait)
}
