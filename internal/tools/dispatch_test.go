package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/protocol"
)

type fakeApprover struct {
	got  []protocol.ApprovalRequestParams
	dec  string
	err  error
	note string
}

func (f *fakeApprover) Approve(_ context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	f.got = append(f.got, req)
	return protocol.ApprovalRequestResult{Decision: f.dec, Reason: f.note}, f.err
}

func invoke(d *Dispatcher, name, args string, consent bool) protocol.ToolResult {
	return d.Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{ID: "c1", Name: name, Arguments: json.RawMessage(args)}, ConsentGranted: consent})
}

func TestDispatchValidationNamesPointers(t *testing.T) {
	d := NewDispatcher(newTestRegistry(t, echoTool("echo", "")), nil, zerolog.Nop())
	tests := []struct {
		args string
		want []string
	}{
		{`{"text":5}`, []string{"at /text:", "string"}},
		{`{}`, []string{"at /:", "text"}},
		{`{"text":"a","times":0}`, []string{"at /times:", "minimum"}},
		{`{"text":"a","bogus":1}`, []string{"at /:", "bogus"}},
		{`[1]`, []string{"must be a JSON object", "array"}},
		{`"str"`, []string{"must be a JSON object"}},
	}
	for _, tt := range tests {
		res := invoke(d, "echo", tt.args, false)
		if res.Success || !res.NeedsFollowup {
			t.Errorf("args %s: %+v, want a follow-up failure", tt.args, res)
		}
		for _, w := range tt.want {
			if !strings.Contains(res.Error, w) {
				t.Errorf("args %s: error %q lacks %q", tt.args, res.Error, w)
			}
		}
	}
}

func TestDispatchRunsAndTimes(t *testing.T) {
	d := NewDispatcher(newTestRegistry(t, echoTool("echo", protocol.ExposureHidden)), nil, zerolog.Nop())
	res := invoke(d, "echo", `{"text":"ab","times":2}`, false)
	if !res.Success || res.Message != "abab" || res.Data["id"] != "c1" {
		t.Fatalf("result = %+v", res)
	}
	if _, ok := res.Data["durationMs"].(int64); !ok {
		t.Errorf("durationMs missing: %+v", res.Data)
	}
	// Missing arguments are an empty object; a generated id is cuid2-style.
	res = d.Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{Name: "echo"}})
	if res.Success || !strings.Contains(res.Error, "text") {
		t.Errorf("null arguments: %+v", res)
	}
}

func TestDispatchUnknownTool(t *testing.T) {
	d := NewDispatcher(newTestRegistry(t, echoTool("read_file", ""), echoTool("read_filez", protocol.ExposureHidden)), nil, zerolog.Nop())
	res := invoke(d, "read_fille", `{}`, false)
	if res.Success || !res.NeedsFollowup || res.Error != "unknown tool: read_fille" {
		t.Fatalf("result = %+v", res)
	}
	if s, _ := res.Data["suggestions"].([]string); len(s) != 1 || s[0] != "read_file" {
		t.Errorf("suggestions = %v", res.Data["suggestions"])
	}
	if res.Data["unknownTool"] != "read_fille" {
		t.Errorf("unknownTool = %v", res.Data["unknownTool"])
	}
}

func TestDispatchPanicBecomesResult(t *testing.T) {
	boom := New(protocol.ToolDescriptor{Name: "boom", Parameters: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, Call, struct{}) protocol.ToolResult { panic("kaboom") })
	d := NewDispatcher(newTestRegistry(t, boom), nil, zerolog.Nop())
	res := invoke(d, "boom", `{}`, false)
	if res.Success || !strings.Contains(res.Error, "internal error") || strings.Contains(res.Error, "kaboom") {
		t.Errorf("result = %+v", res)
	}
	if !protocol.IsTerminal(res) {
		t.Error("a panic should be terminal")
	}
}

func TestDispatchApprovals(t *testing.T) {
	reg := newTestRegistry(t, echoTool("exec_thing", ""), echoTool("get_thing", ""), echoTool("delete_thing", ""))
	tests := []struct {
		name     string
		tool     string
		consent  bool
		approver *fakeApprover
		wantOK   bool
		asked    bool
		reason   string
	}{
		{"read tools are not asked", "get_thing", false, &fakeApprover{dec: "deny"}, true, false, ""},
		{"local allowed", "exec_thing", false, &fakeApprover{dec: "allow"}, true, true, ""},
		{"destructive denied", "delete_thing", false, &fakeApprover{dec: "deny", note: "no"}, false, true, "no"},
		{"consent skips asking", "exec_thing", true, &fakeApprover{dec: "deny"}, true, false, ""},
		{"host gone denies", "exec_thing", false, &fakeApprover{err: ErrHostGone}, false, true, "host is not connected"},
		{"garbage decision denies", "exec_thing", false, &fakeApprover{dec: "maybe"}, false, true, "denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDispatcher(reg, tt.approver, zerolog.Nop())
			res := invoke(d, tt.tool, `{"text":"x"}`, tt.consent)
			if res.Success != tt.wantOK {
				t.Fatalf("result = %+v", res)
			}
			if !tt.wantOK && (res.Error != "approval_denied" || !res.NeedsFollowup || !strings.Contains(res.Message, tt.reason)) {
				t.Errorf("denial = %+v", res)
			}
			if asked := len(tt.approver.got) > 0; asked != tt.asked {
				t.Errorf("asked = %v, want %v", asked, tt.asked)
			}
			if tt.asked && tt.approver.got[0].CallID != "c1" {
				t.Errorf("approval request = %+v", tt.approver.got[0])
			}
		})
	}
}

type upper struct{ Tool }

func (upper) Prepare(args json.RawMessage) (json.RawMessage, *protocol.ToolResult) {
	if strings.Contains(string(args), "refuse") {
		r := Followup("refused by prepare")
		return nil, &r
	}
	return json.RawMessage(strings.ReplaceAll(string(args), `"message"`, `"text"`)), nil
}

func TestDispatchPreparer(t *testing.T) {
	d := NewDispatcher(newTestRegistry(t, upper{echoTool("ask", "")}), nil, zerolog.Nop())
	if res := invoke(d, "ask", `{"message":"hi"}`, false); !res.Success || res.Message != "hi" {
		t.Errorf("prepared call = %+v", res)
	}
	if res := invoke(d, "ask", `{"message":"refuse"}`, false); res.Error != "refused by prepare" {
		t.Errorf("refused call = %+v", res)
	}
}

func TestNoHostFailsEveryRequest(t *testing.T) {
	ctx, h := context.Background(), NoHost{}
	_, e1 := h.AskUser(ctx, protocol.AskUserRequestParams{})
	_, e2 := h.Approve(ctx, protocol.ApprovalRequestParams{})
	_, e3 := h.InvokeTool(ctx, protocol.ToolCall{})
	_, e4 := h.WebSearch(ctx, protocol.WebSearchRequestParams{})
	for i, err := range []error{e1, e2, e3, e4} {
		if !errors.Is(err, ErrHostGone) {
			t.Errorf("request %d = %v, want ErrHostGone", i, err)
		}
	}
}
