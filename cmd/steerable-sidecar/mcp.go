package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/mcpserver"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// mcpCmd serves the same registry and dispatch pipeline as an MCP server
// over stdio (SPEC §5), until the client closes stdin or a signal arrives.
//
// The handshake is answered at once while the tools boot in the background
// (tools/list and tools/call wait for them). The workspace is --cwd, else
// STEERABLE_WORKSPACE: then a boot failure (a bad workspace, or any invalid
// variable with --strict-config) exits 2, as serve does. Without either the
// workspace is the client's first acceptable root (checkRoot), else the
// process cwd (refused when that is the filesystem root or fails the same
// check), and boots after notifications/initialized;
// a failure then fails tools/list and tools/call with the reason, since the
// client is already connected. An invalid security-relevant variable exits
// 2 before the handshake in either case (config.Fatal).
func mcpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcp", "mcp [flags]\n\n"+mcpAbout, stdout, stderr)
	var common commonFlags
	common.register(fs, "info")
	fs.Lookup("cwd").Usage = "workspace root (overrides STEERABLE_WORKSPACE; default: the client's first root, else the current directory unless it is /)"
	strict := fs.Bool("strict-config", false, "exit 2 (with --cwd or STEERABLE_WORKSPACE; else fail tools/list) on any invalid or misspelt environment variable")
	strategy := fs.String("strategy", "", "tools/list strategy: full, minimal or progressive (default: STEERABLE_MCP_STRATEGY, else full)")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "steerable-sidecar mcp: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	// The MCP layer's own settings; boot validates and reports the whole
	// configuration (an invalid value here is its default), except that a
	// security-relevant one stops the server before the handshake, whether
	// or not a workspace is configured yet.
	cfg, problems := config.Load(config.Environ())
	if err := config.FatalError(config.Fatal(problems, false)); err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
		return exitUsage
	}
	if *strategy == "" {
		*strategy = cfg.MCPStrategy
	}
	log, logOut, err := newLogger(stderr, common.logLevel, common.logFormat)
	if err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
		return exitUsage
	}
	defer logOut.Close(logFlushWait)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &mcpBoot{common: common, strict: *strict, stderr: stderr, host: mcpserver.NewHost(log), stop: cancel, cfg: cfg}
	m.idle = sync.NewCond(&m.mu)
	defer m.close()
	fromRoots := common.cwd == "" && cfg.Workspace == ""
	m.booting = !fromRoots // the server boots a configured workspace at once
	srv, err := mcpserver.New(mcpserver.Options{Version: version, Strategy: *strategy, Host: m.host,
		Open: m.opener(fromRoots), Roots: fromRoots, CheckRoot: checkRoot(cfg),
		MaxInflight: cfg.MaxInflight, LocalNetwork: cfg.SandboxNetwork, Results: cfg.MCPResults, Log: log})
	if err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
		return exitUsage
	}
	stopSignals := onSignals(cancel)
	defer stopSignals()
	if in, ok := stdin.(*os.File); ok {
		stdin = input(in)
	}
	if out, ok := stdout.(*os.File); ok {
		stdout = pollable(out)
	}
	err = srv.Serve(ctx, &mcpserver.StreamTransport{In: stdin, Out: stdout, MaxFrame: int(cfg.MaxFrameBytes),
		MaxOutput: int(cfg.MaxOutputQueueBytes), Grace: time.Duration(cfg.ShutdownGraceMs) * time.Millisecond, Log: log})
	if err := m.failure(); err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
		return exitUsage
	}
	if err != nil {
		log.Warn().Err(err).Msg("MCP session ended with an error")
	}
	log.Info().Msg("MCP session ended")
	return exitOK
}

// mcpAbout is what `mcp --help` says before the flags.
const mcpAbout = `An MCP server (Model Context Protocol over stdio) with the same tools, safety rules and
sandbox as serve, for Claude Desktop, Claude Code, VS Code, Cursor or any MCP client.
Configure the client to run the command steerable-sidecar with the args ["mcp"]; add
"--cwd", "/path/to/project" for a client that sends no roots (Claude Desktop).

The workspace is --cwd, else STEERABLE_WORKSPACE, else the client's first file:// root
that is acceptable (never /, a credential store such as ~/.ssh or a directory inside one,
nor a whole home while the deny list is empty), else the directory the client started
the server in (never the filesystem root).
ask_user and approvals (STEERABLE_APPROVALS=host) become elicitation requests; a client
that cannot elicit gets no ask_user and has approvals denied. A built-in tool's result is
the text a model reads (the file under a header line, grep's path:line lines, the diff);
STEERABLE_MCP_RESULTS=json sends structuredContent as JSON text for clients that parse it.
stdout carries MCP frames only; logs go to stderr.`

// mcpBoot boots the app for the MCP server once it knows the workspace.
type mcpBoot struct {
	common commonFlags
	cfg    config.Config // as loaded before the boot (the roots are checked by its deny list)
	strict bool
	stderr io.Writer
	host   *mcpserver.Host
	stop   func() // ends the session: a configured workspace that cannot boot

	mu      sync.Mutex
	idle    *sync.Cond // signalled when a boot ends
	booting bool
	closed  bool // close has run: no boot starts any more
	app     *app
	err     error // the boot failure that ended the session
}

// opener boots in root ("" keeps the configured workspace). A failure of a
// configured workspace ends the session (exit 2); one of a root only fails
// the calls.
func (m *mcpBoot) opener(fromRoots bool) mcpserver.Opener {
	return func(_ context.Context, root string) (mcpserver.Tools, error) {
		if fromRoots && root == "" {
			if err := cwdNotFilesystemRoot(); err != nil {
				return mcpserver.Tools{}, err
			}
			if cwd, err := os.Getwd(); err == nil {
				if err := checkRoot(m.cfg)(cwd); err != nil {
					return mcpserver.Tools{}, fmt.Errorf("the current directory: %w; add \"--cwd\", \"/path/to/project\" to the server's args", err)
				}
			}
		}
		t, err := m.boot(root, !fromRoots)
		if err != nil && !fromRoots {
			m.stop()
		}
		return t, err
	}
}

// checkRoot refuses a client's root that must not be the workspace
// (sandbox.WorkspaceProblem, by the resolved deny list and both homes).
func checkRoot(cfg config.Config) mcpserver.RootCheck {
	return func(dir string) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return fmt.Errorf("root %s: %v", dir, err)
		}
		o := denyOptions(cfg)
		if err := sandbox.WorkspaceProblem(sandbox.ResolveDeny(o), o.Homes(), real); err != nil {
			return fmt.Errorf("root %s refused: %w", dir, err)
		}
		return nil
	}
}

// cwdNotFilesystemRoot refuses the last fallback, the process cwd, when it
// is the filesystem root: a client that sends no roots and starts its
// servers in / (Claude Desktop does on macOS) would otherwise hand the
// model the whole disk as its workspace.
func cwdNotFilesystemRoot() error {
	dir, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("workspace: %w; pass one with --cwd or STEERABLE_WORKSPACE", err)
	}
	if filepath.Dir(dir) == dir {
		return fmt.Errorf("the workspace would be the filesystem root %s (the client started the server there and sent no roots): "+
			"add \"--cwd\", \"/path/to/project\" to the server's args, or set STEERABLE_WORKSPACE", dir)
	}
	return nil
}

// boot runs once (the server opens its workspace once); close waits for it.
// A failure that ends the session (fatal) is recorded before the boot
// counts as done: failure, woken by that, must see it (it once returned
// between the two, and a bad configuration exited 0).
func (m *mcpBoot) boot(root string, fatal bool) (_ mcpserver.Tools, err error) {
	m.mu.Lock()
	if m.closed {
		m.booting = false
		m.idle.Broadcast()
		m.mu.Unlock()
		return mcpserver.Tools{}, fmt.Errorf("the MCP session has ended")
	}
	m.booting = true
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		if err != nil && fatal {
			m.err = err
		}
		m.booting = false
		m.idle.Broadcast()
		m.mu.Unlock()
	}()
	flags := m.common
	if root != "" {
		flags.cwd = root
	}
	a, err := boot(flags, m.strict, m.stderr)
	if err != nil {
		return mcpserver.Tools{}, err
	}
	m.mu.Lock()
	m.app = a
	m.mu.Unlock()
	if err := a.buildTools(m.host); err != nil {
		return mcpserver.Tools{}, err
	}
	if a.undo != nil { // an MCP client has no host methods: the checkpoint methods as tools
		if err := a.registry.Register(protocol.SourceBuiltin, a.undo.Tools(protocol.Exposure(a.cfg.MCPCheckpointTools))...); err != nil {
			return mcpserver.Tools{}, err
		}
	}
	return mcpserver.Tools{Registry: a.registry, Dispatcher: a.dispatcher, Workspace: string(a.cfg.Workspace)}, nil
}

// failure is the boot failure that ended the session, once any boot in
// progress is done: a configured workspace boots as the session starts, and
// a client that hangs up at once must still see the exit code.
func (m *mcpBoot) failure() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for m.booting {
		m.idle.Wait()
	}
	return m.err
}

// close waits for a boot in progress, then releases the app (sandbox temp
// dir, files).
func (m *mcpBoot) close() {
	m.mu.Lock()
	m.closed = true
	for m.booting {
		m.idle.Wait()
	}
	a := m.app
	m.mu.Unlock()
	if a != nil {
		a.close()
	}
}
