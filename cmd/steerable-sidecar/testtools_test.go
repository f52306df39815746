package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"steerable.dev/sidecar/internal/rpc"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// scriptTestTools are registered only in the test binary that the scripts
// run (see TestMain), to exercise the protocol before or beside real tools.
func scriptTestTools(d tools.Deps) []tools.Tool {
	type sleepArgs struct {
		Ms int `json:"ms"`
	}
	type reverseArgs struct {
		Method    string          `json:"method"`
		Params    json.RawMessage `json:"params"`
		DelayMs   int             `json:"delayMs"`   // sleep first
		TimeoutMs int             `json:"timeoutMs"` // the call's context ends after it
	}
	obj := json.RawMessage(`{"type":"object"}`)
	return []tools.Tool{
		tools.New(protocol.ToolDescriptor{Name: "test_sleep", Description: "sleep ms or until cancelled", Mode: protocol.ModeLocal,
			Parameters: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"],"additionalProperties":false}`)},
			func(ctx context.Context, _ tools.Call, a sleepArgs) protocol.ToolResult {
				select {
				case <-time.After(time.Duration(a.Ms) * time.Millisecond):
					return tools.OK("slept", map[string]any{"ms": a.Ms})
				case <-ctx.Done():
					return tools.Followup("cancelled")
				}
			}),
		tools.New(protocol.ToolDescriptor{Name: "test_reverse", Description: "make a reverse call", Mode: protocol.ModeRead, Parameters: obj},
			func(ctx context.Context, _ tools.Call, a reverseArgs) protocol.ToolResult {
				time.Sleep(time.Duration(a.DelayMs) * time.Millisecond)
				if a.TimeoutMs > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, time.Duration(a.TimeoutMs)*time.Millisecond)
					defer cancel()
				}
				out, err := reverseCall(ctx, d.Host, a.Method, a.Params)
				if err != nil {
					return tools.Followup("reverse call failed: %v", err)
				}
				return tools.OK("host answered", out)
			}),
		tools.New(protocol.ToolDescriptor{Name: "test_panic", Description: "panic", Mode: protocol.ModeRead, Parameters: obj, Exposure: protocol.ExposureHidden},
			func(context.Context, tools.Call, struct{}) protocol.ToolResult { panic("test panic") }),
	}
}

// reverseCall sends the reverse request a script names. Serve mode's Peer
// sends any method; an MCP session's Host has only its typed requests, of
// which the scripts use tool.invoke.
func reverseCall(ctx context.Context, host tools.Host, method string, params json.RawMessage) (map[string]any, error) {
	var out map[string]any
	if peer, ok := host.(*rpc.Peer); ok {
		return out, peer.Call(ctx, method, params, &out)
	}
	if method != protocol.MethodToolInvoke {
		return nil, fmt.Errorf("test_reverse sends only %s outside serve mode", protocol.MethodToolInvoke)
	}
	_, err := host.InvokeTool(ctx, protocol.ToolCall{})
	return out, err
}

// scriptFilesFault is the crash hook of the file-tool scripts: with
// SIDECAR_TEST_KILL_AT=rename:N the sidecar SIGKILLs itself just before the
// N-th rename or removal of a write, as a crash between two renames would
// stop it. Unset, it is nil.
func scriptFilesFault(at string) func(step, name string) error {
	if at == "" {
		return nil
	}
	n := 0
	return func(step, _ string) error {
		if step == "rename" || step == "remove" {
			if n++; at == "rename:"+strconv.Itoa(n) {
				self, _ := os.FindProcess(os.Getpid())
				self.Kill() // SIGKILL: no deferred code runs
			}
		}
		return nil
	}
}
