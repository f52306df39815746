package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	sidecar "steerable.dev/sidecar"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/runcode"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// approvals records approval.requests and answers from decide.
type approvals struct {
	mu     sync.Mutex
	got    []protocol.ApprovalRequestParams
	decide func(protocol.ApprovalRequestParams) string
}

func (a *approvals) Approve(_ context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	a.mu.Lock()
	a.got = append(a.got, req)
	a.mu.Unlock()
	return protocol.ApprovalRequestResult{Decision: a.decide(req)}, nil
}

// runCodeHarness is run_code among the built-ins, behind the real
// dispatcher, over a real sandbox (auto: bwrap, then landlock).
type runCodeHarness struct {
	ws    string
	state *readstate.Store
	d     *Dispatcher
	sb    *sandbox.Sandbox
}

func newRunCodeHarness(t testing.TB, approver Approver, extra ...Tool) *runCodeHarness {
	t.Helper()
	deps := bashDeps(t, NoHost{}, false, "auto")
	reg := NewRegistry()
	var disp *Dispatcher
	if approver != nil { // a nil *approvals must stay a nil interface
		disp = NewDispatcher(reg, approver, zerolog.Nop())
	} else {
		disp = NewDispatcher(reg, nil, zerolog.Nop())
	}
	deps.RunCode = runcode.New(runcode.Options{Sandbox: deps.Sandbox, Workspace: deps.Files.Dir(),
		Candidates: runcode.Candidates(os.Getenv("PATH")), Limits: runcode.Limits{Timeout: 30 * time.Second}})
	deps.ReadState, deps.RequireReadBeforeWrite, deps.FileMaxBytes = readstate.NewStore(), true, 1<<20
	deps.Dispatcher, deps.Registry = disp, reg
	if err := reg.Register(protocol.SourceBuiltin, append(Builtins(deps), extra...)...); err != nil {
		t.Fatal(err)
	}
	return &runCodeHarness{ws: deps.Files.Dir(), state: deps.ReadState, d: disp, sb: deps.Sandbox}
}

func (h *runCodeHarness) run(t testing.TB, id string, args any) protocol.ToolResult {
	t.Helper()
	raw, _ := json.Marshal(args)
	res := h.d.Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{ID: id, Name: "run_code", Arguments: raw}})
	var back protocol.ToolResult // as a host sees it
	b, _ := json.Marshal(res)
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

func TestRunCodeRefusesWhatCannotBeAProgram(t *testing.T) {
	h := newRunCodeHarness(t, nil)
	multibyte := strings.Repeat("é", runcode.MaxCodeChars-len("return 1\n#")) // within the limit: characters, not bytes
	tests := []struct {
		args any
		want string
	}{
		{map[string]any{"code": "", "description": "d"}, "code is empty; pass the body of a Python function"},
		{map[string]any{"code": " \n\t", "description": "d"}, "code is empty"},
		{map[string]any{"code": "return 1\n#" + strings.Repeat("x", runcode.MaxCodeChars), "description": "d"},
			"code is 100010 characters, over run_code's limit of 100000"},
		{map[string]any{"code": "return 1", "description": "  "}, "description is blank"},
		{map[string]any{"code": "return 1", "description": ""}, "invalid arguments for run_code: at /description: minLength"},
		{map[string]any{"code": "return 1"}, "invalid arguments for run_code: at /: missing property 'description'"},
		{map[string]any{"code": "return 1", "description": "d", "timeout_ms": 5}, "additional properties 'timeout_ms' not allowed"},
		{map[string]any{"code": 1, "description": "d"}, "invalid arguments for run_code: at /code: got number, want string"},
	}
	for _, tt := range tests {
		res := h.run(t, "rc", tt.args)
		if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, tt.want) {
			t.Errorf("%.60v: %+v, want a follow-up containing %q", tt.args, res, tt.want)
		}
	}
	if res := checkProgram(runCodeArgs{Code: "return 1\n#" + multibyte, Description: "d"}); res != nil {
		t.Errorf("%d characters refused: %s", runcode.MaxCodeChars, res.Error)
	}
}

// Nested calls go through the whole pipeline: the file tools with the
// session's read state, approval for a destructive one (the consent for
// run_code is not consent for what it calls), unknown names.
func TestRunCodeNestedCallsGoThroughThePipeline(t *testing.T) {
	if len(runcode.Candidates(os.Getenv("PATH"))) == 0 {
		t.Skip("no python3 on PATH")
	}
	appr := &approvals{decide: func(r protocol.ApprovalRequestParams) string {
		if r.ToolName == "delete_thing" {
			return "deny"
		}
		return "allow"
	}}
	deleted := false
	del := New(protocol.ToolDescriptor{Name: "delete_thing", Description: "delete", Parameters: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, Call, struct{}) protocol.ToolResult { deleted = true; return OK("deleted", nil) })
	h := newRunCodeHarness(t, appr, del)
	res := h.run(t, "rc", map[string]any{"description": "write, read, delete", "code": `w = tools.write_file(path="notes/a.txt", content="hello\n")
r = tools.call_or_raise("read_file", path="notes/a.txt")
d = tools.delete_thing()
u = tools.reed_file(path="x")
return {"written": w["success"], "content": r["data"]["content"], "delete": [d["success"], d["error"]], "unknown": u["data"]["suggestions"][0]}`})
	if !res.Success {
		t.Fatalf("%+v", res)
	}
	want := map[string]any{"written": true, "content": "hello\n", "delete": []any{false, "approval_denied"}, "unknown": "read_file"}
	var got map[string]any
	json.Unmarshal(mustJSON(t, res.Data["value"]), &got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
	if deleted {
		t.Error("the denied destructive call ran")
	}
	var names []string
	for _, c := range res.Data["calls"].([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	if diff := cmp.Diff([]string{"write_file", "read_file", "delete_thing", "reed_file"}, names); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "notes/a.txt")); string(b) != "hello\n" {
		t.Errorf("file %q", b)
	}
	if e, ok := h.state.Get(filepath.Join(h.ws, "notes/a.txt")); !ok || e.Version != readstate.Of([]byte("hello\n")) {
		t.Errorf("the session's read state does not know the nested write: %+v %v", e, ok)
	}
	var asked []string
	for _, r := range appr.got {
		asked = append(asked, r.CallID+" "+r.ToolName)
	}
	if diff := cmp.Diff([]string{"rc run_code", "rc.3 delete_thing"}, asked); diff != "" {
		t.Errorf("approval requests (-want +got):\n%s", diff)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunCodeResultShapes(t *testing.T) {
	lim := runcode.Limits{MaxCalls: 32, Timeout: 60 * time.Second}
	sbLim := sandbox.Limits{MaxProcs: 512, MaxMemoryBytes: 4 << 30}
	tests := []struct {
		name    string
		out     runcode.Outcome
		success bool
		err     string
		extra   []string // data keys besides description, calls, logs, _sandbox
	}{
		{"value", runcode.Outcome{Done: &runcode.Done{OK: true, Value: json.RawMessage(`{"n":2}`)}}, true, "", []string{"value"}},
		{"exception", runcode.Outcome{Done: &runcode.Done{Kind: runcode.KindException, Error: "KeyError: 'a'", Traceback: "tb", Line: 4}},
			false, "KeyError: 'a'", []string{"errorKind", "traceback", "line"}},
		{"syntax without a line", runcode.Outcome{Done: &runcode.Done{Kind: runcode.KindSyntax, Error: "SyntaxError: x (line 0)"}},
			false, "SyntaxError: x (line 0)", []string{"errorKind", "traceback"}},
		{"call limit", runcode.Outcome{Stopped: runcode.ErrCallLimit}, false,
			"run_code stopped the program: it kept calling tools after a call over the limit of 32 nested calls (STEERABLE_RUN_CODE_MAX_CALLS) was refused", nil},
		{"bridge", runcode.Outcome{Stopped: fmt.Errorf("%w: frame 1: bad", runcode.ErrBridge)}, false,
			"run_code stopped the program: the run_code bridge broke: frame 1: bad; the program must not write to or close file descriptors 3 and 4", nil},
		{"memory", runcode.Outcome{Limit: "memory", LimitCertain: true, ExitCode: 137, Signal: "SIGKILL"}, false,
			"the program hit the sandbox's memory limit of 4096 MB (STEERABLE_SANDBOX_MAX_MEMORY_MB) and was killed (exit code 137)", nil},
		{"memory under RLIMIT_AS", runcode.Outcome{Limit: "memory", LimitEvidence: `it reported "MemoryError"`,
			Done: &runcode.Done{Kind: runcode.KindException, Error: "MemoryError"}}, false, "MemoryError", []string{"errorKind", "traceback"}},
		{"processes under RLIMIT_NPROC", runcode.Outcome{Limit: "processes", LimitEvidence: `it reported "can't start new thread"`, ExitCode: 1}, false,
			`the program probably hit the sandbox's limit of 512 processes (STEERABLE_SANDBOX_MAX_PROCS, enforced here as RLIMIT_NPROC, ` +
				`which keeps no count of refused forks): it reported "can't start new thread" (exit code 1)`, nil},
		{"timeout", runcode.Outcome{TimedOut: true, Stdout: "so far"}, false,
			"run_code timed out after 60000 ms (STEERABLE_RUN_CODE_TIMEOUT_MS, nested calls included)", nil},
		{"cancelled", runcode.Outcome{Cancelled: true}, false, "run_code cancelled; the program and everything it started were killed", nil},
		{"exited silently", runcode.Outcome{ExitCode: 3}, false, "run_code child exited without a result (exit code 3)", nil},
		{"exited with stderr", runcode.Outcome{ExitCode: 1, Stderr: "Fatal Python error: boom\n"}, false,
			"run_code child exited without a result (exit code 1): Fatal Python error: boom", nil},
		{"killed", runcode.Outcome{ExitCode: 139, Signal: "SIGSEGV"}, false, "run_code child exited without a result (killed by SIGSEGV)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.out.Sandbox = sandbox.Info{Backend: "bwrap", Enforcement: sandbox.EnforcementFull}
			r := runCodeResult("desc", tt.out, sbLim, lim)
			if r.Success != tt.success || !strings.HasPrefix(r.Error, tt.err) || (!r.Success && !r.NeedsFollowup) {
				t.Errorf("result %+v, want success %v and an error starting %q", r, tt.success, tt.err)
			}
			keys := []string{"_sandbox", "calls", "description", "logs"}
			keys = append(keys, tt.extra...)
			var got []string
			for k := range r.Data {
				got = append(got, k)
			}
			if diff := cmp.Diff(keys, got, cmpSorted); diff != "" {
				t.Errorf("data keys (-want +got):\n%s", diff)
			}
		})
	}
}

var cmpSorted = cmp.Transformer("sorted", func(in []string) []string {
	out := append([]string{}, in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

// The tool half of tool_contract.json's runCode section.
func TestRunCodeContract(t *testing.T) {
	var doc struct {
		RunCode struct {
			Tool struct {
				Mode  protocol.Mode `json:"mode"`
				Input struct {
					Required, Optional []string
				} `json:"input"`
				Result, FailureResult, CallRecord, Logs []string
				NestedRunCode                           protocol.ToolResult `json:"nestedRunCode"`
			} `json:"tool"`
		} `json:"runCode"`
	}
	if err := json.Unmarshal(sidecar.Contract, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.RunCode.Tool
	desc := newRunCode(runCode{}).Descriptor()
	var schema struct {
		Required   []string
		Properties map[string]any
	}
	json.Unmarshal(desc.Parameters, &schema)
	var props []string
	for p := range schema.Properties {
		props = append(props, p)
	}
	if desc.Mode != c.Mode || !cmp.Equal(schema.Required, c.Input.Required) || !cmp.Equal(props, append(c.Input.Required, c.Input.Optional...), cmpSorted) {
		t.Errorf("descriptor %s %v %v, contract %+v", desc.Mode, schema.Required, props, c.Input)
	}
	keys := func(m map[string]any) []string {
		out := []string{"durationMs"} // the dispatcher adds it
		for k := range m {
			out = append(out, k)
		}
		return out
	}
	ok := runCodeResult("d", runcode.Outcome{Done: &runcode.Done{OK: true, Value: json.RawMessage(`1`)},
		Calls: []runcode.CallRecord{{Name: "read_file"}}}, sandbox.Limits{}, runcode.Limits{})
	if diff := cmp.Diff(c.Result, keys(ok.Data), cmpSorted); diff != "" {
		t.Errorf("result (-contract +got):\n%s", diff)
	}
	bad := runCodeResult("d", runcode.Outcome{Done: &runcode.Done{Kind: runcode.KindException, Error: "E: x", Line: 1}}, sandbox.Limits{}, runcode.Limits{})
	if diff := cmp.Diff(c.FailureResult, keys(bad.Data), cmpSorted); diff != "" {
		t.Errorf("failure result (-contract +got):\n%s", diff)
	}
	var rec map[string]any
	json.Unmarshal(mustJSON(t, ok.Data["calls"].([]runcode.CallRecord)[0]), &rec)
	if diff := cmp.Diff(c.CallRecord, keys(rec)[1:], cmpSorted); diff != "" {
		t.Errorf("call record (-contract +got):\n%s", diff)
	}
	var logs []string
	for k := range ok.Data["logs"].(map[string]any) {
		logs = append(logs, k)
	}
	if diff := cmp.Diff(c.Logs, logs, cmpSorted); diff != "" {
		t.Errorf("logs (-contract +got):\n%s", diff)
	}
	if !c.NestedRunCode.Terminal || c.NestedRunCode.Error != "nested run_code is not allowed" {
		t.Errorf("nested run_code in the contract: %+v", c.NestedRunCode)
	}
}
