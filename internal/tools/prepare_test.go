package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"steerable.dev/sidecar/protocol"
)

// TestReadFileHasAFastCheck: read_file's schema is flat, so its arguments
// take the fast check (schema.Schema.Accepts).
func TestReadFileHasAFastCheck(t *testing.T) {
	h := newFileHarness(t)
	e, ok := h.d.reg.Lookup("read_file")
	if !ok {
		t.Fatal("read_file not registered")
	}
	if sch, err := e.Schema(); err != nil || !sch.Fast() {
		t.Errorf("read_file: no fast check (%v)", err)
	}
}

// TestFlatSchemaLeavesRefusalsToTheValidator: arguments the fast check
// does not take get the validator's verdict and message, as before.
func TestFlatSchemaLeavesRefusalsToTheValidator(t *testing.T) {
	h := newFileHarness(t)
	for _, tc := range []struct{ args, want string }{
		{`{"path":"a.txt","offset":0}`, "/offset"},
		{`{"path":"a.txt","extra":1}`, "extra"},
		{`{"offset":1}`, "path"},
		{`{"path":7}`, "/path"},
	} {
		res := h.d.Dispatch(t.Context(), Invocation{ToolCall: protocol.ToolCall{Name: "read_file", Arguments: json.RawMessage(tc.args)}})
		if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "invalid arguments for read_file") || !strings.Contains(res.Error, tc.want) {
			t.Errorf("read_file %s = %+v, want the validator's refusal naming %s", tc.args, res, tc.want)
		}
	}
}

// BenchmarkPrepareReadFileArgs: what checking read_file's arguments costs.
func BenchmarkPrepareReadFileArgs(b *testing.B) {
	h := newFileHarness(b)
	e, _ := h.d.reg.Lookup("read_file")
	args := json.RawMessage(`{"path":"some/dir/file.go","offset":10,"limit":200}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, refused := prepare(e, args); refused != nil {
			b.Fatal(refused.Error)
		}
	}
}
