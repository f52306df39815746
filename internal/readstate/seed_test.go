package readstate

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	v1 = strings.Repeat("1", 64)
	v2 = strings.Repeat("2", 64)
	v3 = strings.Repeat("3", 64)
)

// toolMsg is a role:"tool" message whose content is the JSON of res.
func toolMsg(name, callID string, res any) json.RawMessage {
	body, _ := json.Marshal(res)
	m := map[string]any{"role": "tool", "content": string(body)}
	if name != "" {
		m["name"] = name
	}
	if callID != "" {
		m["tool_call_id"] = callID
	}
	b, _ := json.Marshal(m)
	return b
}

func ok(data map[string]any) map[string]any { return map[string]any{"success": true, "data": data} }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestFromMessages(t *testing.T) {
	tests := []struct {
		name     string
		messages []json.RawMessage
		want     map[string]*Entry
		skipped  int
	}{
		{
			name: "read then write: later wins, partial only from read_file, kept by an edit",
			messages: []json.RawMessage{
				toolMsg("read_file", "c1", ok(map[string]any{"path": "/w/a", "version": v1, "partial": true})),
				toolMsg("write_file", "c2", ok(map[string]any{"path": "/w/b", "version": v2, "partial": true})),
				toolMsg("edit_file", "c3", ok(map[string]any{"path": "/w/a", "version": v3})),
			},
			want: map[string]*Entry{"/w/a": {Version: v3, Partial: true}, "/w/b": {Version: v2}},
		},
		{
			name: "a write_file or a full read clears the partial flag; an edit of a full read is not partial",
			messages: []json.RawMessage{
				toolMsg("read_file", "", ok(map[string]any{"path": "/w/a", "version": v1, "partial": true})),
				toolMsg("write_file", "", ok(map[string]any{"path": "/w/a", "version": v2})),
				toolMsg("edit_file", "", ok(map[string]any{"path": "/w/a", "version": v3})),
				toolMsg("read_file", "", ok(map[string]any{"path": "/w/b", "version": v1, "partial": true})),
				toolMsg("read_file", "", ok(map[string]any{"path": "/w/b", "version": v1})),
			},
			want: map[string]*Entry{"/w/a": {Version: v3}, "/w/b": {Version: v1}},
		},
		{
			name: "apply_patch keeps a partial view of what it updates or moves",
			messages: []json.RawMessage{
				toolMsg("read_file", "", ok(map[string]any{"path": "/w/u", "version": v1, "partial": true})),
				toolMsg("read_file", "", ok(map[string]any{"path": "/w/m", "version": v1, "partial": true})),
				toolMsg("read_file", "", ok(map[string]any{"path": "/w/full", "version": v1})),
				toolMsg("apply_patch", "", ok(map[string]any{
					"versions": map[string]any{"/w/u": v2, "/w/m2": v2, "/w/full": v2, "/w/added": v3},
					"files": []any{
						map[string]any{"path": "/w/u", "op": "update"},
						map[string]any{"path": "/w/m2", "op": "move", "from": "/w/m"},
						map[string]any{"path": "/w/full", "op": "update"},
						map[string]any{"path": "/w/added", "op": "add"},
					},
				})),
			},
			want: map[string]*Entry{"/w/u": {Version: v2, Partial: true}, "/w/m2": {Version: v2, Partial: true}, "/w/m": nil,
				"/w/full": {Version: v2}, "/w/added": {Version: v3}},
		},
		{
			name: "partial read is kept",
			messages: []json.RawMessage{
				toolMsg("read_file", "", ok(map[string]any{"path": "/w/./a", "version": v1, "partial": true})),
			},
			want: map[string]*Entry{"/w/a": {Version: v1, Partial: true}},
		},
		{
			name: "name from the assistant's tool_calls",
			messages: []json.RawMessage{
				raw(`{"role":"assistant","content":null,"tool_calls":[{"id":"c9","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`),
				toolMsg("", "c9", ok(map[string]any{"path": "/w/a", "version": v1})),
				toolMsg("", "unknown-id", ok(map[string]any{"path": "/w/z", "version": v1})),
			},
			want: map[string]*Entry{"/w/a": {Version: v1}},
		},
		{
			name: "content as text parts",
			messages: []json.RawMessage{
				raw(`{"role":"tool","name":"read_file","content":[{"type":"text","text":"{\"success\":true,"},{"type":"image_url"},{"type":"text","text":"\"data\":{\"path\":\"/w/a\",\"version\":\"` + v1 + `\"}}"}]}`),
			},
			want: map[string]*Entry{"/w/a": {Version: v1}},
		},
		{
			name: "apply_patch versions, deletes and moves",
			messages: []json.RawMessage{
				toolMsg("read_file", "", ok(map[string]any{"path": "/w/old", "version": v1})),
				toolMsg("read_file", "", ok(map[string]any{"path": "/w/gone", "version": v1})),
				toolMsg("apply_patch", "", ok(map[string]any{
					"versions": map[string]any{"/w/new": v2, "/w/x": v3},
					"files": []any{
						map[string]any{"path": "/w/new", "op": "move", "from": "/w/old"},
						map[string]any{"path": "/w/gone", "op": "delete"},
						map[string]any{"path": "/w/x", "op": "update"},
					},
				})),
			},
			want: map[string]*Entry{"/w/new": {Version: v2}, "/w/x": {Version: v3}, "/w/old": nil, "/w/gone": nil},
		},
		{
			name: "unparseable file-tool messages are skipped and counted",
			messages: []json.RawMessage{
				raw(`{"role":"tool","name":"read_file","content":"[output spilled to /tmp/x]"}`),
				raw(`{"role":"tool","name":"read_file","content":"{\"summary\":\"folded\"}"}`),
				toolMsg("edit_file", "", ok(map[string]any{"path": "relative", "version": v1})),
				toolMsg("write_file", "", ok(map[string]any{"path": "/w/a", "version": "short"})),
				toolMsg("apply_patch", "", ok(map[string]any{"files": []any{}})),
				toolMsg("apply_patch", "", ok(map[string]any{"versions": map[string]any{"/w/a": "bad"}})),
				raw(`{"role":"tool","name":"read_file","content":42}`),
				raw(`{"role":"tool","name":"read_file","content":[]}`),
			},
			want:    map[string]*Entry{},
			skipped: 8,
		},
		{
			name: "other tools, other roles and failed results are ignored",
			messages: []json.RawMessage{
				toolMsg("bash", "", ok(map[string]any{"path": "/w/a", "version": v1})),
				raw(`{"role":"user","content":"hi"}`),
				raw(`"not an object"`),
				toolMsg("write_file", "", map[string]any{"success": false, "needsFollowup": true, "data": map[string]any{"path": "/w/a", "expectedVersion": v1}}),
				raw(`{"role":"tool","name":"bash","content":"not json"}`),
			},
			want: map[string]*Entry{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, skipped := FromMessages(tt.messages)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if skipped != tt.skipped {
				t.Errorf("skipped = %d, want %d", skipped, tt.skipped)
			}
		})
	}
}

func TestSeed(t *testing.T) {
	s := NewStore()
	s.Set("/w/kept", Entry{Version: v1})
	res, err := s.Seed(
		map[string]string{"/w/a": v3, "/w/c": v2},
		[]json.RawMessage{
			toolMsg("read_file", "", ok(map[string]any{"path": "/w/a", "version": v1, "partial": true})),
			toolMsg("read_file", "", ok(map[string]any{"path": "/w/b", "version": v2})),
			raw(`{"role":"tool","name":"read_file","content":"spilled"}`),
		})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(SeedResult{Seeded: 3, Skipped: 1}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	want := map[string]string{"/w/kept": v1, "/w/a": v3, "/w/b": v2, "/w/c": v2}
	if diff := cmp.Diff(want, s.Snapshot()); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if e, _ := s.Get("/w/a"); e.Partial {
		t.Error("an explicit state entry replaces the partial read")
	}
}

func TestSeedRefusesBadState(t *testing.T) {
	for _, state := range []map[string]string{{"rel/a": v1}, {"/w/a": "xyz"}} {
		s := NewStore()
		if _, err := s.Seed(state, nil); err == nil {
			t.Errorf("Seed(%v) accepted", state)
		}
		if s.Len() != 0 {
			t.Errorf("Seed(%v) seeded something despite the error", state)
		}
	}
}

// FuzzFromMessages: the host's record is untrusted input; no message may
// panic the parser or seed a path that is not absolute and clean.
func FuzzFromMessages(f *testing.F) {
	f.Add(string(toolMsg("read_file", "c1", ok(map[string]any{"path": "/w/a", "version": v1}))))
	f.Add(`{"role":"tool","name":"apply_patch","content":"{\"success\":true,\"data\":{\"versions\":{\"/a\":\"` + v2 + `\"}}}"}`)
	f.Add(`{"role":"tool","content":[{"type":"text","text":"{"}]}`)
	f.Fuzz(func(t *testing.T, msg string) {
		found, skipped := FromMessages([]json.RawMessage{json.RawMessage(msg), json.RawMessage(msg)})
		if skipped < 0 || skipped > 2 {
			t.Fatalf("skipped = %d", skipped)
		}
		for p, e := range found {
			if !strings.HasPrefix(p, "/") || p != filepath.Clean(p) {
				t.Fatalf("seeded path %q is not absolute and clean", p)
			}
			if e != nil && !Valid(e.Version) {
				t.Fatalf("seeded version %q is invalid", e.Version)
			}
		}
	})
}
