package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/mcpserver"
)

// mcpCmd serves the same registry and dispatch pipeline as an MCP server
// over stdio (SPEC §5), until the client closes stdin or a signal arrives.
// The workspace is --cwd, else STEERABLE_WORKSPACE, else the client's first
// root, else the process cwd: when it comes from the roots, the tools are
// built once the client has said which (after notifications/initialized).
func mcpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcp", "mcp [flags]", stdout, stderr)
	var common commonFlags
	common.register(fs, "info")
	strict := fs.Bool("strict-config", false, "refuse to serve (exit 2, or fail tools/list when the workspace comes from the roots) on any invalid environment variable")
	strategy := fs.String("strategy", "", "tools/list strategy: full, minimal or progressive (default: STEERABLE_MCP_STRATEGY, else full)")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "steerable-sidecar mcp: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	// The MCP layer's own settings; boot validates and reports the whole
	// configuration (an invalid value here is its default).
	cfg, _ := config.Load(config.Environ())
	if *strategy == "" {
		*strategy = cfg.MCPStrategy
	}
	m := &mcpSession{common: common, strict: *strict, stderr: stderr}
	opts := mcpserver.Options{Version: version, Strategy: *strategy, MaxInflight: cfg.MaxInflight, LocalNetwork: cfg.SandboxNetwork}
	var err error
	if common.cwd != "" || cfg.Workspace != "" {
		err = m.bootFixed(&opts)
	} else {
		err = m.bootLater(&opts)
	}
	if err == nil {
		var srv *mcpserver.Server
		if srv, err = mcpserver.New(opts); err == nil {
			return m.serve(srv, cfg, stdin, stdout)
		}
	}
	m.close()
	fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
	return exitUsage
}

// mcpSession is what mcpCmd boots: the app once the workspace is known, and
// the logger of the MCP layer.
type mcpSession struct {
	common commonFlags
	strict bool
	stderr io.Writer
	log    zerolog.Logger
	flush  func() // flushes the MCP layer's logger when it is not the app's

	mu  sync.Mutex
	app *app
}

// bootFixed boots now: the workspace is fixed by configuration, so a bad
// one (or, with --strict-config, a bad variable) exits 2 like serve.
func (m *mcpSession) bootFixed(opts *mcpserver.Options) error {
	a, err := boot(m.common, m.strict, m.stderr)
	if err != nil {
		return err
	}
	m.app, m.log, m.flush = a, a.log, func() {}
	opts.Log, opts.Host = a.log, mcpserver.NewHost(a.log)
	if err := a.buildTools(opts.Host); err != nil {
		return err
	}
	opts.Tools = &mcpserver.Tools{Registry: a.registry, Dispatcher: a.dispatcher, Workspace: a.cfg.Workspace}
	return nil
}

// bootLater serves the handshake at once and boots when the server opens
// the workspace from the client's roots; a failure then fails tools/list
// and tools/call with the reason.
func (m *mcpSession) bootLater(opts *mcpserver.Options) error {
	log, out, err := newLogger(m.stderr, m.common.logLevel, m.common.logFormat)
	if err != nil {
		return err
	}
	m.log, m.flush = log, func() { flushLogger(out) }
	opts.Log, opts.Host = log, mcpserver.NewHost(log)
	opts.Open = func(_ context.Context, root string) (mcpserver.Tools, error) {
		flags := m.common
		flags.cwd = root // "": the process cwd
		a, err := boot(flags, m.strict, m.stderr)
		if err != nil {
			return mcpserver.Tools{}, err
		}
		m.mu.Lock()
		m.app = a
		m.mu.Unlock()
		if err := a.buildTools(opts.Host); err != nil {
			return mcpserver.Tools{}, err
		}
		return mcpserver.Tools{Registry: a.registry, Dispatcher: a.dispatcher, Workspace: a.cfg.Workspace}, nil
	}
	return nil
}

// flushLogger waits briefly for log lines still queued in w, when the writer
// newLogger returned buffers them.
func flushLogger(w any) {
	if c, ok := w.(interface{ Close(time.Duration) }); ok {
		c.Close(300 * time.Millisecond)
	}
}

// serve runs the session on stdio; SIGTERM and SIGINT cancel every call
// (their children are killed) and end it.
func (m *mcpSession) serve(srv *mcpserver.Server, cfg config.Config, stdin io.Reader, stdout io.Writer) int {
	defer m.close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopSignals := onSignals(cancel)
	defer stopSignals()
	if in, ok := stdin.(*os.File); ok {
		stdin = pollable(in)
	}
	if out, ok := stdout.(*os.File); ok {
		stdout = pollable(out)
	}
	err := srv.Serve(ctx, &mcpserver.StreamTransport{In: stdin, Out: stdout, MaxFrame: cfg.MaxFrameBytes,
		Grace: time.Duration(cfg.ShutdownGraceMs) * time.Millisecond, Log: m.log})
	if err != nil {
		m.log.Warn().Err(err).Msg("MCP session ended with an error")
	}
	m.log.Info().Msg("MCP session ended")
	return exitOK
}

// close releases the app (sandbox temp dir, files) and flushes the logs.
func (m *mcpSession) close() {
	m.mu.Lock()
	a := m.app
	m.mu.Unlock()
	if a != nil {
		a.close()
	}
	if m.flush != nil {
		m.flush()
	}
}
