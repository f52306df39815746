package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/protocol"
)

// askUser puts ask_user's questions to the person as one elicitation form:
// a property per question, in question order. Accept → the answers; decline
// or cancel → cancelled (ask_user then records empty answers).
func askUser(ctx context.Context, ss *mcp.ServerSession, p protocol.AskUserRequestParams) (protocol.AskUserRequestResult, error) {
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: askMessage(p), RequestedSchema: askSchema(p.Questions)})
	if err != nil {
		return protocol.AskUserRequestResult{}, fmt.Errorf("elicitation failed: %w", err)
	}
	if res.Action != "accept" {
		return protocol.AskUserRequestResult{Cancelled: true}, nil
	}
	return protocol.AskUserRequestResult{Answers: res.Content}, nil
}

func askMessage(p protocol.AskUserRequestParams) string {
	if p.Outro == "" {
		return p.Intro
	}
	return p.Intro + "\n\n" + p.Outro
}

// askSchema is the form: MCP elicitation's restricted schema (flat, primitive
// properties). select → a string with titled choices (oneOf const/title);
// multiSelect → an array of them (items.anyOf); text → a string; password →
// a string marked writeOnly with a description saying it is secret (MCP has
// no masked field; clients render it as text). Every question but a
// multiSelect (whose answer may be no choice) is required. Properties are
// written in question order: clients render them in the order they arrive.
func askSchema(qs []protocol.AskUserQuestion) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	required := []string{}
	for i, q := range qs {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(q.ID)
		prop, _ := json.Marshal(askProperty(q))
		b.Write(key)
		b.WriteByte(':')
		b.Write(prop)
		if !q.MultiSelect {
			required = append(required, q.ID)
		}
	}
	req, _ := json.Marshal(required)
	fmt.Fprintf(&b, `},"required":%s}`, req)
	return b.Bytes()
}

// elicitProperty is one form field.
type elicitProperty struct {
	Type        string         `json:"type"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	OneOf       []elicitChoice `json:"oneOf,omitempty"`
	Items       *elicitItems   `json:"items,omitempty"`
	WriteOnly   bool           `json:"writeOnly,omitempty"`
}

type elicitItems struct {
	AnyOf []elicitChoice `json:"anyOf"`
}

type elicitChoice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

func askProperty(q protocol.AskUserQuestion) elicitProperty {
	p := elicitProperty{Type: "string", Title: q.Text, Description: q.Header}
	switch {
	case q.Type == "select" && q.MultiSelect:
		p.Type, p.Items = "array", &elicitItems{AnyOf: choices(q.Options)}
	case q.Type == "select":
		p.OneOf = choices(q.Options)
	case q.Type == "password":
		p.WriteOnly = true
		p.Description = joinNonEmpty(" — ", q.Header, "Secret: the answer is masked in the tool's message and in logs.")
	default:
		p.Description = joinNonEmpty(" — ", q.Header, q.Placeholder)
	}
	return p
}

// choices are a select's options, one per value (the first wins: a repeated
// value would make oneOf match twice and fail validation).
func choices(opts []protocol.AskUserOption) []elicitChoice {
	seen := map[string]bool{}
	out := make([]elicitChoice, 0, len(opts))
	for _, o := range opts {
		v := o.Value
		if v == "" {
			v = o.Label
		}
		if seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, elicitChoice{Const: v, Title: joinNonEmpty(" — ", o.Label, o.Description)})
	}
	return out
}

func joinNonEmpty(sep string, parts ...string) string {
	return strings.Join(nonEmpty(parts), sep)
}

// approvalArgsMax bounds the arguments shown in an approval prompt.
const approvalArgsMax = 2000

// approve asks whether a local or destructive call may run
// (STEERABLE_APPROVALS=host). Only an accepted form that chose "allow"
// allows it; decline, cancel, a form without a decision, or an error deny
// (fail closed).
func approve(ctx context.Context, ss *mcp.ServerSession, p protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: approvalMessage(p), RequestedSchema: approvalSchema})
	if err != nil {
		return protocol.ApprovalRequestResult{}, fmt.Errorf("elicitation failed: %w", err)
	}
	deny := protocol.ApprovalRequestResult{Decision: protocol.DecisionDeny}
	switch res.Action {
	case "decline":
		deny.Reason = "the user declined the call in the MCP client"
		return deny, nil
	case "accept":
	default:
		deny.Reason = "the user dismissed the approval prompt"
		return deny, nil
	}
	if d, _ := res.Content["decision"].(string); d == protocol.DecisionAllow {
		return protocol.ApprovalRequestResult{Decision: protocol.DecisionAllow}, nil
	}
	deny.Reason, _ = res.Content["reason"].(string)
	if strings.TrimSpace(deny.Reason) == "" {
		deny.Reason = "the user denied this call"
	}
	return deny, nil
}

func approvalMessage(p protocol.ApprovalRequestParams) string {
	args := string(p.Arguments)
	if len(args) > approvalArgsMax {
		cut := approvalArgsMax
		for cut > 0 && !utf8.RuneStart(args[cut]) {
			cut--
		}
		args = args[:cut] + fmt.Sprintf("… (%d more bytes)", len(args)-cut)
	}
	return fmt.Sprintf("The agent wants to run %s (mode %s, which needs your approval) with these arguments:\n%s\n\nAllow this call?",
		p.ToolName, p.Mode, args)
}

var approvalSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"decision":{"type":"string","title":"Decision","oneOf":[{"const":"allow","title":"Allow this call"},{"const":"deny","title":"Deny it"}]},` +
	`"reason":{"type":"string","title":"Reason (optional)","description":"Told to the agent when you deny the call."}},` +
	`"required":["decision"]}`)
