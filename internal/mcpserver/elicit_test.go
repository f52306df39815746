package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/protocol"
)

var askArgs = map[string]any{
	"intro": "Before I deploy:",
	"questions": []map[string]any{
		{"id": "env", "text": "Which environment?", "type": "select", "header": "Target",
			"options": []map[string]any{{"label": "Staging", "value": "stg"}, {"label": "Production", "description": "live users"}}},
		{"id": "checks", "text": "Which checks?", "type": "select", "multiSelect": true,
			"options": []map[string]any{{"label": "lint"}, {"label": "tests"}}},
		{"id": "note", "text": "Release note?", "type": "text", "placeholder": "one line"},
		{"id": "token", "text": "Deploy token?", "type": "password"},
	},
	"outro": "Thanks.",
}

func TestAskUserSchema(t *testing.T) {
	var qs []protocol.AskUserQuestion
	b, _ := json.Marshal(askArgs["questions"])
	json.Unmarshal(b, &qs)
	got := string(askSchema(qs))
	want := `{"type":"object","properties":{` +
		`"env":{"type":"string","title":"Which environment?","description":"Target","oneOf":[{"const":"stg","title":"Staging"},{"const":"Production","title":"Production — live users"}]},` +
		`"checks":{"type":"array","title":"Which checks?","items":{"anyOf":[{"const":"lint","title":"lint"},{"const":"tests","title":"tests"}]}},` +
		`"note":{"type":"string","title":"Release note?","description":"one line"},` +
		`"token":{"type":"string","title":"Deploy token?","description":"Secret: the answer is masked in the tool's message and in logs.","writeOnly":true}},` +
		`"required":["env","note","token"]}`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("schema (-want +got):\n%s", d)
	}
}

func TestChoicesDropRepeatedValues(t *testing.T) {
	got := choices([]protocol.AskUserOption{{Label: "a"}, {Label: "b", Value: "a"}, {Label: "c"}})
	want := []elicitChoice{{"a", "a"}, {"c", "c"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// elicitWith answers every elicitation with res and records the requests.
func elicitWith(res *mcp.ElicitResult, seen *[]*mcp.ElicitParams) mcp.ClientOptions {
	return mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		*seen = append(*seen, r.Params)
		return res, nil
	}}
}

func TestAskUserThroughElicitation(t *testing.T) {
	var seen []*mcp.ElicitParams
	answers := map[string]any{"env": "stg", "checks": []any{"lint", "tests"}, "note": "fix", "token": "s3cret"}
	h := newHarness(t, setup{client: elicitWith(&mcp.ElicitResult{Action: "accept", Content: answers}, &seen)})
	res := h.call("ask_user", askArgs)
	if res.IsError {
		t.Fatalf("ask_user failed: %s", text(res, 0))
	}
	d := data(t, res)
	if d["cancelled"] != false || !cmp.Equal(d["answers"], map[string]any{"env": "stg", "checks": []any{"lint", "tests"}, "note": "fix", "token": "s3cret"}) {
		t.Errorf("data = %v", d)
	}
	if strings.Contains(text(res, 0), "s3cret") {
		t.Errorf("the password is in the message: %q", text(res, 0))
	}
	if len(seen) != 1 || seen[0].Message != "Before I deploy:\n\nThanks." {
		t.Errorf("elicitations = %+v", seen)
	}
}

func TestAskUserDeclinedIsCancelled(t *testing.T) {
	for _, action := range []string{"decline", "cancel"} {
		t.Run(action, func(t *testing.T) {
			var seen []*mcp.ElicitParams
			h := newHarness(t, setup{client: elicitWith(&mcp.ElicitResult{Action: action}, &seen)})
			res := h.call("ask_user", askArgs)
			d := data(t, res)
			if res.IsError || d["cancelled"] != true || !cmp.Equal(d["answers"], map[string]any{}) {
				t.Errorf("%s: isError %v, data %v; want empty answers, cancelled", action, res.IsError, d)
			}
		})
	}
}

func TestAskUserWithoutElicitationIsCancelled(t *testing.T) {
	h := newHarness(t, setup{})
	res := h.call("ask_user", askArgs) // not offered, but callable by name
	if d := data(t, res); d["cancelled"] != true || !strings.Contains(text(res, 0), "elicitation") {
		t.Errorf("data %v, text %q; want cancelled naming elicitation", d, text(res, 0))
	}
}

func TestAskUserAnswerOutsideTheSchemaIsCancelled(t *testing.T) {
	var seen []*mcp.ElicitParams
	bad := map[string]any{"env": "mars", "note": "x", "token": "y"}
	h := newHarness(t, setup{client: elicitWith(&mcp.ElicitResult{Action: "accept", Content: bad}, &seen)})
	res := h.call("ask_user", askArgs)
	if d := data(t, res); d["cancelled"] != true {
		t.Errorf("an answer that is not one of the choices was accepted: %v", d)
	}
}

func TestApprovalThroughElicitation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  *mcp.ElicitResult
		allowed bool
		reason  string
	}{
		{"allow", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow"}}, true, ""},
		{"deny with a reason", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny", "reason": "not now"}}, false, "not now"},
		{"deny", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny"}}, false, "the user denied this call"},
		{"decline", &mcp.ElicitResult{Action: "decline"}, false, "declined"},
		{"cancel", &mcp.ElicitResult{Action: "cancel"}, false, "dismissed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []*mcp.ElicitParams
			h := newHarness(t, setup{approvals: true, client: elicitWith(tc.answer, &seen)})
			res := h.call("exec_thing", map[string]any{})
			if tc.allowed != !res.IsError {
				t.Fatalf("isError %v: %s", res.IsError, text(res, 0))
			}
			if len(seen) != 1 || !strings.Contains(seen[0].Message, "exec_thing (mode local") {
				t.Errorf("elicitation %+v; want one naming the tool and mode", seen)
			}
			if !tc.allowed && (!strings.Contains(text(res, 0), "approval_denied") || !strings.Contains(text(res, 0), tc.reason)) {
				t.Errorf("text %q; want approval_denied and %q", text(res, 0), tc.reason)
			}
		})
	}
}

func TestApprovalFailsClosedWithoutElicitation(t *testing.T) {
	h := newHarness(t, setup{approvals: true})
	res := h.call("exec_thing", map[string]any{})
	if !res.IsError || !strings.Contains(text(res, 0), "approval_denied") {
		t.Errorf("isError %v, %q; want approval_denied", res.IsError, text(res, 0))
	}
	if res := h.call("read_file", map[string]any{"path": "nope.txt"}); strings.Contains(text(res, 0), "approval") {
		t.Errorf("a read-mode tool was asked about: %q", text(res, 0))
	}
}
