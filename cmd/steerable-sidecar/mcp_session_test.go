package main

// Script commands for MCP sessions (mcp_*.txtar). The live-session commands
// (send, rpc, await, notification, reverse, sidecar close|signal|wait|stderr)
// work on an MCP session unchanged: MCP is JSON-RPC 2.0 on stdio too.
//
//	mcp start [flags]          start `steerable-sidecar mcp [flags]` in the script's directory
//	                           (no ready marker to wait for)
//	mcp init ['CAPABILITIES']  initialize (protocol 2025-06-18) with the client capabilities,
//	                           print the result, then send notifications/initialized
//	mcp pad N                  set $PAD to N bytes of "x" (for oversized frames)
//	mcp log SUBSTR             wait until the server's stderr holds SUBSTR

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func cmdMCP(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: mcp start [flags] | mcp init ['CAPABILITIES']")
	}
	s := sess(ts)
	switch args[0] {
	case "start":
		s.startMCP(ts, args[1:])
	case "init":
		caps := "{}"
		if len(args) > 1 {
			caps = args[1]
		}
		s.write(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18",`+
			`"capabilities":%s,"clientInfo":{"name":"testscript","version":"1"}}}`, caps))
		s.awaitReply(ts, "init")
		s.write(ts, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	case "log":
		s.waitStderr(ts, 0, strings.Join(args[1:], " "))
	case "pad":
		n, err := strconv.Atoi(args[len(args)-1])
		ts.Check(err)
		ts.Setenv("PAD", strings.Repeat("x", n))
	default:
		ts.Fatalf("unknown mcp subcommand %q", args[0])
	}
}

// startMCP starts the MCP server mode with the script's environment; unlike
// `sidecar start` it waits for nothing: an MCP server speaks when spoken to.
func (s *session) startMCP(ts *testscript.TestScript, flags []string) {
	s.cmd = exec.Command(lookPath(ts, ts.Getenv("PATH")), append([]string{"mcp"}, flags...)...)
	s.cmd.Dir = ts.MkAbs(".") // the script's directory: $WORK unless it ran cd
	s.cmd.Env = scriptEnv(ts)
	s.changed = sync.NewCond(&s.mu)
	s.exited = make(chan struct{})
	stdin, err := s.cmd.StdinPipe()
	ts.Check(err)
	stdout, err := s.cmd.StdoutPipe()
	ts.Check(err)
	stderr, err := s.cmd.StderrPipe()
	ts.Check(err)
	s.stdin = stdin
	ts.Check(s.cmd.Start())
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); s.readFrames(stdout) }()
	go func() { defer readers.Done(); s.readStderr(stderr) }()
	cmd, exited, changed := s.cmd, s.exited, s.changed
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
}

// mcpTestTools are the test binary's extra tools when the script sets
// SIDECAR_TEST_DEFERRED=1: a deferred tier for tool_search to unlock (no
// host can register host tools over MCP).
func mcpTestTools(d tools.Deps) []tools.Tool {
	if os.Getenv("SIDECAR_TEST_DEFERRED") != "1" {
		return nil
	}
	return []tools.Tool{
		tools.New(protocol.ToolDescriptor{Name: "create_calendar_event", Description: "Create an event in the user's calendar",
			Exposure:   protocol.ExposureDeferred,
			Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)},
			func(_ context.Context, _ tools.Call, a struct{ Title string }) protocol.ToolResult {
				return tools.OK("created "+a.Title, map[string]any{"title": a.Title})
			}),
	}
}
