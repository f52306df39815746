package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// app is one booted sidecar: configuration, logger, registry and dispatcher,
// shared by serve, call and tools.
type app struct {
	cfg        config.Config
	log        zerolog.Logger
	logOut     io.Writer // stderr behind the logger's lock, shared with the ready line
	registry   *tools.Registry
	dispatcher *tools.Dispatcher
	checks     map[string]protocol.Check
	files      *files.Workspace // the file tools' view of the workspace
	readState  *readstate.Store // the session's read state (read_state.seed/get)
}

// extraTools is set only by the end-to-end test binary, to register tools
// that exercise the protocol; release builds never set it.
var extraTools func(tools.Deps) []tools.Tool

// bootError is a failure that stops the process with exit 2.
type bootError struct{ msg string }

func (e *bootError) Error() string { return e.msg }

// newLogger builds the stderr logger; stdout never carries logs.
func newLogger(stderr io.Writer, level, format string) (zerolog.Logger, io.Writer, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Logger{}, nil, fmt.Errorf("--log-level %q: use trace, debug, info, warn or error", level)
	}
	out := zerolog.SyncWriter(stderr)
	var w io.Writer
	switch format {
	case "json":
		w = out
	case "console":
		w = zerolog.ConsoleWriter{Out: out, NoColor: true, TimeFormat: "15:04:05.000"}
	default:
		return zerolog.Logger{}, nil, fmt.Errorf("--log-format %q: use json or console", format)
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), out, nil
}

// boot loads the configuration in the given posture and resolves the
// workspace; the caller then builds the tools with its Host. strict: any
// invalid variable is a bootError naming it; otherwise each problem is logged
// and its feature degraded (SPEC §4.3).
func boot(flags commonFlags, strict bool, stderr io.Writer) (*app, error) {
	log, logOut, err := newLogger(stderr, flags.logLevel, flags.logFormat)
	if err != nil {
		return nil, &bootError{err.Error()}
	}
	cfg, problems := config.Load(config.Environ())
	if strict && len(problems) > 0 {
		var msgs []string
		for _, p := range problems {
			msgs = append(msgs, p.Error())
		}
		return nil, &bootError{"invalid configuration:\n  " + strings.Join(msgs, "\n  ")}
	}
	a := &app{cfg: cfg, log: log, logOut: logOut, checks: map[string]protocol.Check{}}
	a.degrade(problems)
	if flags.noWebTools {
		a.cfg.Web.Disabled = "--no-web-tools"
	}
	ws, err := workspace(flags.cwd, cfg.Workspace)
	if err != nil {
		return nil, &bootError{err.Error()}
	}
	a.cfg.Workspace = ws
	return a, nil
}

// degrade applies the serve posture: every problem is logged, a bad web
// variable leaves the web pair out (checks.web = error), and any other bad
// variable falls back to its default (checks.config = warn).
func (a *app) degrade(problems []config.Problem) {
	a.checks["config"] = protocol.Check{Status: protocol.CheckOK, Message: "configuration valid"}
	var other, web []string
	for _, p := range problems {
		a.log.Error().Str("var", p.Var).Str("value", p.Value).Str("allowed", p.Allowed).
			Msg("invalid configuration value; using the default")
		if p.Feature == "web" {
			web = append(web, p.Error())
		} else {
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
	return abs, nil
}

// buildTools registers the built-ins and builds the dispatcher. host is the
// reverse channel: the rpc Peer when serving, tools.NoHost for the CLI.
func (a *app) buildTools(host tools.Host) error {
	a.registry = tools.NewRegistry()
	if err := a.openFiles(); err != nil {
		return err
	}
	deps := tools.Deps{Workspace: a.cfg.Workspace, Host: host, Log: a.log,
		Files: a.files, ReadState: a.readState, RequireReadBeforeWrite: a.cfg.RequireReadBeforeWrite, FileMaxBytes: a.cfg.FileMaxBytes}
	builtins := tools.Builtins(deps)
	if extraTools != nil {
		builtins = append(builtins, extraTools(deps)...)
	}
	if err := a.registry.Register(protocol.SourceBuiltin, builtins...); err != nil {
		panic("built-in tools: " + err.Error()) // a programming error, not a configuration one
	}
	var approver tools.Approver
	if a.cfg.Approvals == "host" {
		approver = tools.HostApprover{Host: host}
	}
	a.dispatcher = tools.NewDispatcher(a.registry, approver, a.log)
	return nil
}

// healthChecks returns a copy of the boot checks for Health.
func (a *app) healthChecks() map[string]protocol.Check {
	out := make(map[string]protocol.Check, len(a.checks))
	for k, v := range a.checks {
		out[k] = v
	}
	return out
}

// openFiles opens the workspace for the file tools and the session's read
// state.
func (a *app) openFiles() error {
	ws, err := files.Open(a.cfg.Workspace, a.cfg.WorkspaceConfine)
	if err != nil {
		return &bootError{err.Error()}
	}
	a.files, a.readState = ws, readstate.NewStore()
	msg := "workspace " + ws.Dir() + ", paths confined to it"
	if !ws.Confined() {
		msg = "workspace " + ws.Dir() + ", confinement off (STEERABLE_WORKSPACE_CONFINE=0)"
	}
	if !a.cfg.RequireReadBeforeWrite {
		msg += "; read-before-write gate off (STEERABLE_REQUIRE_READ_BEFORE_WRITE=0)"
	}
	a.checks["files"] = protocol.Check{Status: protocol.CheckOK, Message: msg}
	return nil
}

// close releases what boot acquired.
func (a *app) close() {
	if a.files != nil {
		a.files.Close()
	}
}
