package askuser

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/protocol"
)

// ask_user's model-JSON boundary (tools-spec "ask_user", SPEC §4.5). Models
// do not always follow the schema literally — gpt-oss via Ollama emits
// Inquirer-style name / message / choices — so the arguments are rewritten
// onto the canonical AskUserQuestionsPayload before validation, and the host
// only ever renders that. Whatever is still wrong afterwards is refused with
// every problem named by its path and its fix, so the model retries within
// the same turn.

// Bounds of one ask_user call. The count bounds are the spec's; the lengths
// keep a question card renderable (a megabyte "question" is a model bug, not
// a question).
const (
	askUserMaxQuestions = 4
	askUserMinOptions   = 2
	askUserMaxOptions   = 20
	askUserMaxID        = 64
	askUserMaxShort     = 200  // header, placeholder, option label and value
	askUserMaxDesc      = 1000 // option description
	askUserMaxText      = 2000 // question text
	askUserMaxIntro     = 4000 // intro, outro
	askUserMaxProblems  = 5    // problems spelled out in one refusal
)

// Canonical question types.
const (
	askSelect   = "select"
	askText     = "text"
	askPassword = "password"
)

// Args are ask_user's canonical arguments.
type Args struct {
	Intro     string                     `json:"intro"`
	Questions []protocol.AskUserQuestion `json:"questions"`
	Outro     string                     `json:"outro,omitempty"`
}

// askType is what a type name (canonical or Inquirer) becomes.
type askType struct {
	typ     string
	multi   bool // checkbox
	confirm bool // confirm: a Yes/No select
}

var askTypes = map[string]askType{
	askSelect:   {typ: askSelect},
	askText:     {typ: askText},
	askPassword: {typ: askPassword},
	"list":      {typ: askSelect},
	"rawlist":   {typ: askSelect},
	"expand":    {typ: askSelect},
	"checkbox":  {typ: askSelect, multi: true},
	"input":     {typ: askText},
	"editor":    {typ: askText},
	"number":    {typ: askText},
	"confirm":   {typ: askSelect, confirm: true},
}

// Keys each level accepts. Inquirer keys with no canonical meaning
// (validation callbacks, defaults, paging) are dropped; any other key is
// refused, as the schema's additionalProperties:false would.
var (
	askTopKeys         = keySet("intro", "questions", "outro")
	askQuestionKeys    = keySet("id", "name", "text", "message", "type", "options", "choices", "multiSelect", "header", "placeholder")
	askQuestionDropped = keySet("default", "when", "validate", "filter", "transformer", "pageSize", "loop", "prefix", "suffix", "mask", "askAnswered", "waitUserInput", "postfix")
)

func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// Prepare rewrites model JSON before schema validation (the tool's
// Preparer): the canonical arguments, or a follow-up refusal naming each
// problem.
func Prepare(args json.RawMessage) (json.RawMessage, *protocol.ToolResult) {
	canon, problems := normalizeAskUser(args)
	if len(problems) > 0 {
		r := protocol.ToolResult{NeedsFollowup: true, Error: "ask_user arguments need fixing: " + joinProblems(problems)}
		return nil, &r
	}
	out, err := json.Marshal(canon)
	if err != nil { // strings and bools only: cannot happen
		r := protocol.ToolResult{Terminal: true, Error: fmt.Sprintf("ask_user: encoding the arguments: %v", err)}
		return nil, &r
	}
	return out, nil
}

func joinProblems(p []string) string {
	if len(p) <= askUserMaxProblems {
		return strings.Join(p, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(p[:askUserMaxProblems], "; "), len(p)-askUserMaxProblems)
}

// normalizer collects problems while it rewrites.
type normalizer struct{ problems []string }

func (n *normalizer) fail(format string, args ...any) {
	n.problems = append(n.problems, fmt.Sprintf(format, args...))
}

// normalizeAskUser rewrites model JSON into canonical arguments; a non-empty
// problem list means the arguments are refused.
func normalizeAskUser(raw json.RawMessage) (Args, []string) {
	var n normalizer
	v, err := schema.Decode(raw)
	if err != nil {
		n.fail(`arguments are not valid JSON (%v); send an object {"intro": "...", "questions": [...]}`, err)
		return Args{}, n.problems
	}
	m, ok := v.(map[string]any)
	if !ok {
		n.fail(`arguments must be an object {"intro": "...", "questions": [...]}, got %s`, schema.Kind(v))
		return Args{}, n.problems
	}
	n.unknownKeys("", m, askTopKeys, nil, "ask_user takes intro, questions and outro")
	var out Args
	if _, ok := m["intro"]; !ok || m["intro"] == nil {
		n.fail(`intro is missing; add a short "intro" that tells the user why you are asking`)
	} else {
		out.Intro = n.str("intro", m["intro"], askUserMaxIntro)
	}
	out.Outro = n.str("outro", m["outro"], askUserMaxIntro)
	out.Questions = n.questions(m["questions"])
	return out, n.problems
}

// questions normalises the question list: a single question object (or a
// JSON-encoded list) where the list belongs is accepted.
func (n *normalizer) questions(v any) []protocol.AskUserQuestion {
	list := asList(v)
	switch {
	case v == nil:
		n.fail(`questions is missing; add "questions": a list of 1 to %d questions, each {"id", "text", "type"}`, askUserMaxQuestions)
		return nil
	case len(list) == 0:
		n.fail("questions is empty; ask 1 to %d questions", askUserMaxQuestions)
		return nil
	case len(list) > askUserMaxQuestions:
		n.fail("questions has %d items; ask at most %d questions per call and ask the rest in a later call", len(list), askUserMaxQuestions)
		return nil
	}
	out := make([]protocol.AskUserQuestion, 0, len(list))
	firstUse := map[string]int{}
	for i, qv := range list {
		q, ok := n.question(i, qv)
		if !ok {
			continue
		}
		if j, dup := firstUse[q.ID]; dup {
			n.fail("questions[%d].id %q repeats questions[%d].id; give every question a unique id", i, q.ID, j)
		} else if q.ID != "" {
			firstUse[q.ID] = i
		}
		out = append(out, q)
	}
	return out
}

// question normalises one question.
func (n *normalizer) question(i int, v any) (protocol.AskUserQuestion, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		n.fail(`questions[%d] must be an object {"id", "text", "type"}, got %s`, i, schema.Kind(v))
		return protocol.AskUserQuestion{}, false
	}
	at := fmt.Sprintf("questions[%d]", i)
	n.unknownKeys(at, m, askQuestionKeys, askQuestionDropped,
		"a question takes id, text, type, options, multiSelect, header and placeholder")
	q := protocol.AskUserQuestion{
		ID:          n.str(at+".id", pick(m, "id", "name"), askUserMaxID),
		Text:        n.str(at+".text", pick(m, "text", "message"), askUserMaxText),
		Header:      n.str(at+".header", m["header"], askUserMaxShort),
		Placeholder: n.str(at+".placeholder", m["placeholder"], askUserMaxShort),
	}
	if q.ID == "" {
		n.fail(`%s.id is missing or empty; give every question a short unique id such as "q%d"`, at, i+1)
	}
	if q.Text == "" {
		n.fail(`%s.text is missing or empty; put the question itself in "text"`, at)
	}
	n.shape(at, m, &q)
	return q, true
}

// shape resolves the question's type, options and multiSelect.
func (n *normalizer) shape(at string, m map[string]any, q *protocol.AskUserQuestion) {
	rawOpts := pick(m, "options", "choices")
	t, ok := n.questionType(at, m["type"], rawOpts != nil)
	if !ok {
		return
	}
	q.Type = t.typ
	multi := t.multi
	if mv, present := m["multiSelect"]; present && mv != nil {
		b, isBool := mv.(bool)
		switch {
		case !isBool:
			n.fail("%s.multiSelect must be true or false", at)
		case b && t.typ != askSelect:
			n.fail("%s.multiSelect applies only to select questions; drop it or make the question a select", at)
		case !t.multi:
			multi = b
		}
	}
	q.MultiSelect = multi && t.typ == askSelect
	switch {
	case t.confirm:
		q.Options = append([]protocol.AskUserOption(nil), confirmOptions...)
	case t.typ == askSelect:
		q.Options = n.options(at, rawOpts)
	case rawOpts != nil:
		n.fail(`%s is a %s question but has options; make it "type": "select" or drop the options`, at, t.typ)
	}
}

// questionType maps a type name (canonical or Inquirer, any case) onto the
// canonical type. A missing type is select when options are given, else
// text.
func (n *normalizer) questionType(at string, v any, hasOptions bool) (askType, bool) {
	if v == nil {
		if hasOptions {
			return askTypes[askSelect], true
		}
		return askTypes[askText], true
	}
	s, ok := v.(string)
	if !ok {
		n.fail(`%s.type must be "select", "text" or "password", got %s`, at, schema.Kind(v))
		return askType{}, false
	}
	t, ok := askTypes[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		n.fail(`%s.type %q is not supported; use "select", "text" or "password"`, at, clip.Short(s, askUserMaxShort))
		return askType{}, false
	}
	return t, true
}

// str reads an optional text field, trimmed; numbers and booleans are taken
// as their JSON text, null as absent.
func (n *normalizer) str(at string, v any, limit int) string {
	return strings.TrimSpace(n.rawStr(at, v, limit))
}

// rawStr is str without trimming (option values are machine strings).
func (n *normalizer) rawStr(at string, v any, limit int) string {
	if v == nil {
		return ""
	}
	s, ok := scalar(v)
	if !ok {
		n.fail("%s must be a string, got %s", at, schema.Kind(v))
		return ""
	}
	n.checkLen(at, s, limit)
	return s
}

func (n *normalizer) checkLen(at, s string, limit int) {
	if c := utf8.RuneCountInString(s); c > limit {
		n.fail("%s is %d characters; keep it to at most %d", at, c, limit)
	}
}

// unknownKeys refuses keys outside allowed, ignoring the dropped ones (which
// the canonical output leaves out anyway). At most a few keys are named, so
// an object of garbage keys yields a short error.
func (n *normalizer) unknownKeys(at string, m map[string]any, allowed, dropped map[string]bool, fix string) {
	var unknown []string
	for k := range m {
		if !allowed[k] && !dropped[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return
	}
	sort.Strings(unknown)
	names := make([]string, 0, 3)
	for _, k := range unknown[:min(len(unknown), 3)] {
		names = append(names, fmt.Sprintf("%q", clip.Short(k, 40)))
	}
	more := ""
	if len(unknown) > 3 {
		more = fmt.Sprintf(" (and %d more)", len(unknown)-3)
	}
	where := "arguments have"
	if at != "" {
		where = at + " has"
	}
	n.fail("%s unknown field %s%s; %s", where, strings.Join(names, ", "), more, fix)
}

// pick returns the canonical key's value, or the alias's when the canonical
// one is absent, null or an empty string.
func pick(m map[string]any, canonical, alias string) any {
	v := m[canonical]
	if s, ok := v.(string); v == nil || (ok && strings.TrimSpace(s) == "") {
		if a, ok := m[alias]; ok && a != nil {
			return a
		}
	}
	return v
}

// asList accepts a list, a single value where a list belongs, and a list or
// object that a model JSON-encoded into a string; nil is an empty list.
func asList(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	case string:
		t := strings.TrimSpace(x)
		if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
			if inner, err := schema.Decode(json.RawMessage(t)); err == nil {
				if _, isStr := inner.(string); !isStr {
					return asList(inner)
				}
			}
		}
	}
	return []any{v}
}

// scalar reads a string, number or boolean as text.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		if x {
			return "true", true
		}
		return "false", true
	}
	return "", false
}
