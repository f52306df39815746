package askuser

import (
	"fmt"
	"strings"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/protocol"
)

// The options of a select question, normalised like the rest of ask_user's
// arguments (normalize.go): plain strings, numbers and booleans are
// labels; Inquirer's {name, value, short, checked, disabled, key} is
// {label, value}; Inquirer separators are dropped.

// confirmOptions replace a confirm question's (absent) choices.
var confirmOptions = []protocol.AskUserOption{{Label: "Yes", Value: "yes"}, {Label: "No", Value: "no"}}

// Keys an option accepts, and Inquirer's that are dropped.
var (
	askOptionKeys    = keySet("label", "name", "value", "description")
	askOptionDropped = keySet("short", "checked", "disabled", "key", "type")
)

// options normalises a select's options: plain strings (and numbers) are
// labels, Inquirer's {name, value} is {label, value}, separators are dropped.
func (n *normalizer) options(at string, v any) []protocol.AskUserOption {
	list := asList(v)
	if len(list) > askUserMaxOptions {
		n.fail("%s.options has %d items; offer at most %d", at, len(list), askUserMaxOptions)
		return nil
	}
	var out []protocol.AskUserOption
	firstUse := map[string]int{}
	for j, ov := range list {
		o, keep := n.option(fmt.Sprintf("%s.options[%d]", at, j), ov)
		if !keep {
			continue
		}
		key := o.Value
		if key == "" {
			key = o.Label
		}
		if k, dup := firstUse[key]; dup {
			n.fail("%s.options[%d] repeats the answer %q of options[%d]; give every option a distinct label or value", at, j, clip.Short(key, askUserMaxShort), k)
		} else {
			firstUse[key] = j
		}
		out = append(out, o)
	}
	if len(out) < askUserMinOptions {
		n.fail(`%s is a select question with %d option(s); give it at least %d options, or make it "type": "text"`, at, len(out), askUserMinOptions)
	}
	return out
}

// option normalises one option; keep is false for a separator or an option
// that could not be read (a problem is recorded for the latter).
func (n *normalizer) option(at string, v any) (protocol.AskUserOption, bool) {
	if s, ok := scalar(v); ok {
		o := protocol.AskUserOption{Label: strings.TrimSpace(s)}
		n.checkLen(at+".label", o.Label, askUserMaxShort)
		return o, n.labelled(at, o)
	}
	m, ok := v.(map[string]any)
	if !ok {
		n.fail(`%s must be a string or an object {"label", "value", "description"}, got %s`, at, schema.Kind(v))
		return protocol.AskUserOption{}, false
	}
	if t, _ := m["type"].(string); t == "separator" {
		return protocol.AskUserOption{}, false
	}
	n.unknownKeys(at, m, askOptionKeys, askOptionDropped, "an option takes label, value and description")
	o := protocol.AskUserOption{
		Label:       n.str(at+".label", pick(m, "label", "name"), askUserMaxShort),
		Value:       n.rawStr(at+".value", m["value"], askUserMaxShort),
		Description: n.str(at+".description", m["description"], askUserMaxDesc),
	}
	if o.Label == "" {
		o.Label = strings.TrimSpace(o.Value)
	}
	return o, n.labelled(at, o)
}

func (n *normalizer) labelled(at string, o protocol.AskUserOption) bool {
	if o.Label == "" {
		n.fail("%s.label is missing or empty; give every option a label", at)
		return false
	}
	return true
}
