package readstate

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// SeedResult is what read_state.seed reports.
type SeedResult struct {
	Seeded  int // distinct paths set
	Skipped int // tool messages of the file tools that could not be parsed
}

// Seed rebuilds the store after a restart (SPEC §4.1 "Resume"). messages
// (the host's durable record) are scanned first, later entries winning;
// state is then taken as given and wins over the messages, being the
// host's own rebuilt mapping. Entries are merged into the store. A state
// key that is not absolute or a value that is not a version is an error and
// nothing is seeded.
func (s *Store) Seed(state map[string]string, messages []json.RawMessage) (SeedResult, error) {
	found, skipped := FromMessages(messages)
	for p, v := range state {
		if !filepath.IsAbs(p) {
			return SeedResult{}, fmt.Errorf("state key %q is not an absolute path; use the data.path the file tools reported", p)
		}
		if !Valid(v) {
			return SeedResult{}, fmt.Errorf("state[%q] = %q is not a version (64 lowercase hex digits)", p, v)
		}
		found[filepath.Clean(p)] = &Entry{Version: v}
	}
	seeded := 0
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, e := range found {
		if e == nil {
			continue // deleted or moved away later in the record
		}
		s.entries[p] = *e
		seeded++
	}
	return SeedResult{Seeded: seeded, Skipped: skipped}, nil
}

// seededTools are the tools whose results carry versions.
var seededTools = map[string]bool{"read_file": true, "write_file": true, "edit_file": true, "apply_patch": true, "notebook_edit": true}

// chatMessage is the part of an OpenAI-shaped chat message that seeding
// reads.
type chatMessage struct {
	Role       string          `json:"role"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"tool_call_id"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// FromMessages scans a chat record for file-tool results and returns path →
// entry (nil for a path a later apply_patch deleted or moved away) and the
// number of file-tool messages it could not parse. A tool's name comes from
// the message's name, else from the assistant tool call with the same id.
// Messages of other tools and failed results are ignored.
func FromMessages(messages []json.RawMessage) (map[string]*Entry, int) {
	found := map[string]*Entry{}
	callNames := map[string]string{}
	skipped := 0
	for _, raw := range messages {
		var m chatMessage
		if json.Unmarshal(raw, &m) != nil {
			continue // not a message at all; the schema lets only objects through
		}
		for _, c := range m.ToolCalls {
			if c.ID != "" {
				callNames[c.ID] = c.Function.Name
			}
		}
		if m.Role != "tool" {
			continue
		}
		name := m.Name
		if name == "" {
			name = callNames[m.ToolCallID]
		}
		if !seededTools[name] {
			continue
		}
		if !applyResult(found, name, m.Content) {
			skipped++
		}
	}
	return found, skipped
}

// toolResult is the part of a ToolResult that seeding reads.
type toolResult struct {
	Success *bool `json:"success"`
	Data    struct {
		Path     string            `json:"path"`
		Version  string            `json:"version"`
		Partial  bool              `json:"partial"`
		Versions map[string]string `json:"versions"`
		Files    []struct {
			Path string `json:"path"`
			Op   string `json:"op"`
			From string `json:"from"`
		} `json:"files"`
	} `json:"data"`
}

// applyResult records one tool message's result into found and reports
// whether it could be parsed. A failed result parses but records nothing.
func applyResult(found map[string]*Entry, tool string, content json.RawMessage) bool {
	text, ok := contentText(content)
	if !ok {
		return false
	}
	var r toolResult
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &r) != nil || r.Success == nil {
		return false
	}
	if !*r.Success {
		return true
	}
	if tool == "apply_patch" {
		return applyPatchResult(found, r)
	}
	if !filepath.IsAbs(r.Data.Path) || !Valid(r.Data.Version) {
		return false
	}
	p := filepath.Clean(r.Data.Path)
	var partial bool
	switch tool {
	case "read_file":
		partial = r.Data.Partial
	case "edit_file", "notebook_edit":
		partial = wasPartial(found, p) // an edit keeps a partial view partial
	}
	found[p] = &Entry{Version: r.Data.Version, Partial: partial}
	return true
}

// wasPartial reports whether the record so far saw only part of p.
func wasPartial(found map[string]*Entry, p string) bool {
	e := found[filepath.Clean(p)]
	return e != nil && e.Partial
}

func applyPatchResult(found map[string]*Entry, r toolResult) bool {
	if r.Data.Versions == nil {
		return false
	}
	for p, v := range r.Data.Versions {
		if !filepath.IsAbs(p) || !Valid(v) {
			return false
		}
	}
	partial := map[string]bool{} // an update keeps a partial view partial, a move carries it along
	for _, f := range r.Data.Files {
		switch f.Op {
		case "update":
			partial[filepath.Clean(f.Path)] = wasPartial(found, f.Path)
		case "move":
			partial[filepath.Clean(f.Path)] = wasPartial(found, f.From)
		}
	}
	for _, f := range r.Data.Files {
		switch {
		case f.Op == "delete" && filepath.IsAbs(f.Path):
			found[filepath.Clean(f.Path)] = nil
		case f.Op == "move" && filepath.IsAbs(f.From):
			found[filepath.Clean(f.From)] = nil
		}
	}
	for p, v := range r.Data.Versions {
		p = filepath.Clean(p)
		found[p] = &Entry{Version: v, Partial: partial[p]}
	}
	return true
}

// contentText flattens a message's content: a string, or an array of parts
// of which the {type:"text", text} ones are concatenated.
func contentText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), b.Len() > 0
}
