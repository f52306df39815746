package main

// Script commands for MCP sessions (mcp_*.txtar). The live-session commands
// (send, rpc, await, notification, reverse, sidecar close|signal|wait|stderr)
// work on an MCP session unchanged: MCP is JSON-RPC 2.0 on stdio too.
//
//	mcp start [flags]          start `steerable-sidecar mcp [flags]` in the script's directory
//	                           (no ready marker to wait for)
//	mcp start-unread [flags]   the same, with a stderr pipe nobody ever reads
//	mcp init ['CAPABILITIES']  initialize (protocol 2025-06-18) with the client capabilities,
//	                           print the result, then send notifications/initialized
//	mcp calls N TOOL 'ARGS'    tools/call N times, one at a time; each must succeed
//	mcp pad N                  set $PAD to N bytes of "x" (for oversized frames)
//	mcp log SUBSTR             wait until the server's stderr holds SUBSTR

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func cmdMCP(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: mcp start|start-unread [flags] | mcp init ['CAPABILITIES'] | mcp calls N TOOL 'ARGS' | mcp log SUBSTR | mcp pad N")
	}
	s := sess(ts)
	switch args[0] {
	case "start":
		s.startMCP(ts, args[1:], stderrRead)
	case "start-unread":
		s.startMCP(ts, args[1:], stderrUnread)
	case "init":
		caps := "{}"
		if len(args) > 1 {
			caps = args[1]
		}
		s.Write(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18",`+
			`"capabilities":%s,"clientInfo":{"name":"testscript","version":"1"}}}`, caps))
		s.AwaitReply(ts, "init")
		s.Write(ts, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	case "calls": // mcp calls N TOOL 'ARGS': tools/call N times, one at a time; none may fail
		if len(args) != 4 {
			ts.Fatalf("usage: mcp calls N TOOL 'ARGS'")
		}
		s.callMany(ts, args[1], func(id string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, args[2], args[3])
		}, func(result json.RawMessage) bool {
			var res struct {
				IsError bool `json:"isError"`
			}
			return len(result) > 0 && json.Unmarshal(result, &res) == nil && !res.IsError
		})
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

// startMCP starts the MCP server mode in the script's directory ($WORK
// unless it ran cd); unlike `sidecar start` it waits for nothing: an MCP
// server speaks when spoken to.
func (s *session) startMCP(ts *testscript.TestScript, flags []string, mode stderrMode) {
	s.spawn(ts, ts.MkAbs("."), append([]string{"mcp"}, flags...), mode)
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
