package mcpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

func TestResultText(t *testing.T) {
	for _, tc := range []struct {
		res  protocol.ToolResult
		want string
	}{
		{protocol.ToolResult{Success: true, Message: "done"}, "done"},
		{protocol.ToolResult{Success: true}, "ok"},
		{protocol.ToolResult{Success: false, Error: "stale: read it again"}, "stale: read it again"},
		{protocol.ToolResult{Success: false, Error: "approval_denied", Message: "the user denied this call"},
			"approval_denied\nthe user denied this call"},
		{protocol.ToolResult{Success: true, Message: "partial", NextAction: "read the rest with offset"},
			"partial\nNext: read the rest with offset"},
		{protocol.ToolResult{Success: false}, "the tool failed without saying why"},
	} {
		if got := resultText(tc.res); got != tc.want {
			t.Errorf("resultText(%+v) = %q, want %q", tc.res, got, tc.want)
		}
	}
}

func TestCallResultFlags(t *testing.T) {
	res := callResult(protocol.ToolResult{Success: false, Terminal: true, Error: "x", NextAction: "stop"})
	want := map[string]any{"success": false, "terminal": true, "nextAction": "stop"}
	if d := cmp.Diff(want, res.Meta[resultMetaKey]); d != "" || !res.IsError || res.StructuredContent != nil {
		t.Errorf("flags (-want +got):\n%s; isError %v, structuredContent %v", d, res.IsError, res.StructuredContent)
	}
}
