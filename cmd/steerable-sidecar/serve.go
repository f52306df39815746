package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"steerable.dev/sidecar/internal/rpc"
	"steerable.dev/sidecar/internal/tools"
)

// serveCmd runs the daemon until shutdown, EOF or a signal.
func serveCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "[serve] [flags]", stdout, stderr)
	var common commonFlags
	common.register(fs, "info")
	strict := fs.Bool("strict-config", false, "exit 2 on any invalid or misspelt environment variable instead of degrading")
	framing := fs.String("framing", rpc.FramingNewline, "frame format: newline or content-length")
	quiet := fs.Bool("quiet-ready", false, "do not write the __SIDECAR_READY__ line on stderr")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "steerable-sidecar serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	signals := catchSignals() // first: installing them overlaps boot (signals.go)
	a, err := boot(common, *strict, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
		return exitUsage
	}
	// The peer exists before the tools (they are built with it) and is
	// bound to the connection when Serve starts.
	host := rpc.NewPeer(a.log)
	if err := a.buildTools(host); err != nil {
		a.close()
		fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
		return exitUsage
	}
	srv, err := rpc.NewServer(rpc.Options{
		Version: version, Framing: *framing,
		MaxFrameBytes: int(a.cfg.MaxFrameBytes), MaxOutputQueueBytes: int(a.cfg.MaxOutputQueueBytes), MaxInflight: a.cfg.MaxInflight,
		ShutdownGrace: time.Duration(a.cfg.ShutdownGraceMs) * time.Millisecond,
		QuietReady:    *quiet, Logs: a.logs, Log: a.log,
	}, rpc.Services{
		Registry: a.registry, Dispatcher: a.dispatcher, Checks: a.healthChecks,
		HostTools: tools.NewHostTools(a.registry, host), ReadState: a.readState, Sessions: a.sessions, Todos: a.todos,
		Plugins: pluginService(a.plugins), Checkpoints: a.checkpointMethods(),
		AfterReady: a.probeAfterReady,
	}, host)
	if err != nil {
		a.close()
		fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
		return exitUsage
	}
	signals.deliver(func() { srv.ShutdownNow(rpc.ReasonSignal) })
	// Signals stay caught until close has ended every child: a SIGTERM
	// during close (after an EOF) taking its default action could kill the
	// process while a child was between fork and its parent-death signal,
	// and that child would outlive the sidecar.
	defer signals.stop()
	defer a.close()
	if in, ok := stdin.(*os.File); ok {
		stdin = input(in)
	}
	if out, ok := stdout.(*os.File); ok {
		stdout = pollable(out)
	}
	if reason := srv.Serve(stdin, stdout); reason == rpc.ReasonShutdownNow || reason == rpc.ReasonSignal {
		a.pluginGrace = 0 // "exits at once, after killing child processes"
	}
	return exitOK
}
