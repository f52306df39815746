package plugins

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// A schema that is well formed but does not compile (a $ref to nowhere)
// passes registration; the background compile finds it, plugin.list and
// checks.plugins say so, and a call answers a follow-up naming the problem
// and plugin.reload — while the plugin's other tools keep working.
func TestSchemaThatDoesNotCompileAnswersNamingReload(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "late", "-dangling-ref", "-read-file=false"))
	f.m.bg.Wait()
	rec := f.record(t, "late")
	if rec.State != protocol.PluginEnabled || !strings.Contains(rec.Error, `tool "dangling": invalid parameters schema`) || !strings.Contains(rec.Error, "plugin.reload") {
		t.Errorf("record: %+v", rec)
	}
	if c := f.m.Check(); c.Status != protocol.CheckError || !strings.Contains(c.Message, `late: 1 of its tools cannot be called`) {
		t.Errorf("check: %+v", c)
	}
	res := f.call(t, "dangling", `{"x":1}`)
	if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "nowhere") || !strings.Contains(res.Error, `plugin.reload {"name":"late"}`) {
		t.Errorf("call: %+v", res)
	}
	if res := f.call(t, "echo", `{"text":"still here"}`); !res.Success || res.Message != "still here" {
		t.Errorf("another tool of the plugin: %+v", res)
	}
}

// The same tool called before the background compile reached it answers
// the same follow-up: the call compiles it itself.
func TestSchemaCompiledByTheFirstCall(t *testing.T) {
	m, p := registerOnly()
	defer m.Close(0)
	list := append(generated(300), danglingTool())
	if _, err := p.register(started{srv: &server{proc: idleProcess{}}, list: list}, nil); err != nil {
		t.Fatal(err)
	}
	d := tools.NewDispatcher(m.reg, nil, zerolog.Nop())
	res := d.Dispatch(context.Background(), tools.Invocation{ToolCall: protocol.ToolCall{ID: "c", Name: "dangling", Arguments: json.RawMessage(`{}`)}})
	if res.Success || !res.NeedsFollowup || !strings.Contains(res.Error, "plugin.reload") {
		t.Errorf("call: %+v", res)
	}
	if bad := p.schemas.String(); !strings.Contains(bad, `tool "dangling": invalid parameters schema`) {
		t.Errorf("the record does not say so at once: %q", bad)
	}
}

// A re-registration (list_changed, reload) clears what the compile of the
// previous one found.
func TestSchemaProblemClearedByTheNextRegistration(t *testing.T) {
	m, p := registerOnly()
	defer m.Close(0)
	srv := &server{proc: idleProcess{}}
	names, err := p.register(started{srv: srv, list: append(generated(2), danglingTool())}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.bg.Wait()
	if p.schemas.String() == "" {
		t.Fatal("the dangling $ref was not found")
	}
	if _, err := p.register(started{srv: srv, list: generated(2)}, names); err != nil {
		t.Fatal(err)
	}
	m.bg.Wait()
	if bad := p.schemas.String(); bad != "" {
		t.Errorf("still reported after a clean registration: %s", bad)
	}
}

// danglingTool's schema is well formed and refers to a definition it lacks.
func danglingTool() *mcp.Tool {
	return &mcp.Tool{Name: "dangling", InputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/nowhere"}}}}
}
