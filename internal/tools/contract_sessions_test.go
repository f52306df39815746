package tools_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	sidecar "steerable.dev/sidecar"
	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// sessionContract is the "sessionTools" section of tool_contract.json, as
// far as the tests check it.
type sessionContract struct {
	Tools     map[string]sessionTool   `json:"tools"`
	SessionID struct{ Pattern string } `json:"sessionId"`
	States    []shellsession.State     `json:"states"`
	Limits    struct {
		YieldMs, MaxOutput struct{ Default, Minimum, Maximum int }
		Chars              struct{ Maximum int }
	} `json:"limits"`
	Refusals map[string]struct {
		NeedsFollowup bool     `json:"needsFollowup"`
		ErrorContains string   `json:"errorContains"`
		Data          []string `json:"data"`
	} `json:"refusals"`
}

type sessionTool struct {
	searchTool
	Result []string `json:"result"`
}

func loadSessionContract(t *testing.T) sessionContract {
	t.Helper()
	var c struct {
		SessionTools sessionContract `json:"sessionTools"`
	}
	if err := json.Unmarshal(sidecar.Contract, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.SessionTools.Tools) != 2 {
		t.Fatalf("sessionTools lists %d tools", len(c.SessionTools.Tools))
	}
	return c.SessionTools
}

// sessionTools registers the built-ins with shell sessions under the none
// backend (the contract is the same under every backend).
func sessionTools(t *testing.T, max int) (*tools.Registry, *tools.Dispatcher) {
	t.Helper()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	sb, err := sandbox.Open(context.Background(), sandbox.Options{Choice: "none", Workspace: ws, TempParent: t.TempDir(),
		Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	fw, err := files.Open(ws, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Close() })
	m, err := shellsession.New(shellsession.Options{Sandbox: sb, Dir: ws, BufferBytes: 1 << 20, MaxSessions: max, Idle: time.Hour, Log: zerolog.Nop()})
	if err != nil {
		t.Skipf("no shell sessions here: %v", err)
	}
	t.Cleanup(m.Close)
	reg := tools.NewRegistry()
	deps := tools.Deps{Host: tools.NoHost{}, Log: zerolog.Nop(), Files: fw, ReadState: nil, Sandbox: sb, Sessions: m}
	if err := reg.Register(protocol.SourceBuiltin, tools.Builtins(deps)...); err != nil {
		t.Fatal(err)
	}
	return reg, tools.NewDispatcher(reg, nil, zerolog.Nop())
}

// TestContractSessionSchemas: both tools are registered with the
// contract's mode, tier, fields and bounds.
func TestContractSessionSchemas(t *testing.T) {
	c := loadSessionContract(t)
	reg, _ := sessionTools(t, 8)
	for name, want := range c.Tools {
		e, ok := reg.Lookup(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		schema := want.checkSurface(t, name, e.Desc)
		if schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("%s: additionalProperties must be false", name)
		}
		for field, l := range map[string]struct{ Default, Minimum, Maximum int }{"yieldMs": c.Limits.YieldMs, "maxOutput": c.Limits.MaxOutput} {
			p := schema.Properties[field]
			if p.Minimum == nil || p.Maximum == nil || *p.Minimum != l.Minimum || *p.Maximum != l.Maximum {
				t.Errorf("%s: %s bounds differ from the contract's %d..%d", name, field, l.Minimum, l.Maximum)
			}
		}
	}
}

// toolSchema is a tool's parameters schema, as far as the contract tests
// check it.
type toolSchema struct {
	Required   []string `json:"required"`
	Properties map[string]struct {
		Minimum, Maximum *int
		Default          any
	} `json:"properties"`
	AdditionalProperties *bool `json:"additionalProperties"`
}

// checkSurface compares a registered tool's mode, tier, required and
// optional fields with the contract's, and returns its schema.
func (want searchTool) checkSurface(t *testing.T, name string, d protocol.ToolDescriptor) toolSchema {
	t.Helper()
	var schema toolSchema
	if err := json.Unmarshal(d.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if d.Mode != want.Mode || d.Exposure != want.Exposure {
		t.Errorf("%s: %s/%s, contract %s/%s", name, d.Mode, d.Exposure, want.Mode, want.Exposure)
	}
	if diff := cmp.Diff(sorted(want.Input.Required), sorted(schema.Required)); diff != "" {
		t.Errorf("%s: required (-contract +schema):\n%s", name, diff)
	}
	if diff := cmp.Diff(sorted(append(slices.Clone(want.Input.Required), want.Input.Optional...)), slices.Sorted(maps.Keys(schema.Properties))); diff != "" {
		t.Errorf("%s: properties (-contract +schema):\n%s", name, diff)
	}
	return schema
}

// TestContractSessionResults opens a session, reads it, types too much,
// closes it, names it again and fills the table, checking each result
// against the contract.
func TestContractSessionResults(t *testing.T) {
	c := loadSessionContract(t)
	_, d := sessionTools(t, 1)
	call := func(name string, args any) protocol.ToolResult {
		raw, _ := json.Marshal(args)
		res := dispatch(t, d, name, string(raw))
		delete(res.Data, "durationMs")
		return res
	}
	fields := func(what string, res protocol.ToolResult, want []string) {
		t.Helper()
		if diff := cmp.Diff(sorted(want), slices.Sorted(maps.Keys(res.Data))); diff != "" {
			t.Errorf("%s: fields (-contract +data):\n%s", what, diff)
		}
	}
	open := call("bash_session", map[string]any{"command": "echo hi"})
	if !open.Success {
		t.Fatalf("bash_session: %s", open.Error)
	}
	fields("bash_session", open, c.Tools["bash_session"].Result)
	id, _ := open.Data["sessionId"].(string)
	if !regexp.MustCompile(c.SessionID.Pattern).MatchString(id) {
		t.Errorf("sessionId %q does not match %s", id, c.SessionID.Pattern)
	}
	if st := shellsession.State(open.Data["state"].(string)); !slices.Contains(c.States, st) {
		t.Errorf("state %q is not one of the contract's %v", st, c.States)
	}
	long := make([]byte, c.Limits.Chars.Maximum+1)
	for i := range long {
		long[i] = 'x'
	}
	if res := call("write_stdin", map[string]any{"sessionId": id, "chars": string(long)}); res.Success || !res.NeedsFollowup {
		t.Errorf("chars over %d: %+v", c.Limits.Chars.Maximum, res)
	}
	limit := call("bash_session", map[string]any{})
	checkRefusal(t, "limit", limit, c.Refusals["limit"].ErrorContains[:len("session limit reached (")], c.Refusals["limit"].NeedsFollowup)
	exited := call("write_stdin", map[string]any{"sessionId": id, "chars": "exit 3\n", "yieldMs": 5000})
	fields("write_stdin exit", exited, append(slices.Clone(c.Tools["write_stdin"].Result), "exitCode"))
	unknown := call("write_stdin", map[string]any{"sessionId": id})
	checkRefusal(t, "unknown", unknown, "", c.Refusals["unknownSession"].NeedsFollowup)
	fields("unknown session", unknown, c.Refusals["unknownSession"].Data)
}

func checkRefusal(t *testing.T, what string, res protocol.ToolResult, contains string, followup bool) {
	t.Helper()
	if res.Success || res.NeedsFollowup != followup || !regexp.MustCompile(regexp.QuoteMeta(contains)).MatchString(res.Error) {
		t.Errorf("%s: success %v, needsFollowup %v, error %q; want a refusal containing %q", what, res.Success, res.NeedsFollowup, res.Error, contains)
	}
}
