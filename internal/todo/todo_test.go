package todo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

func item(id, status string) protocol.TodoItem {
	return protocol.TodoItem{ID: id, Content: "do " + id, Status: status}
}

func TestValidate(t *testing.T) {
	many := make([]protocol.TodoItem, MaxItems+1)
	for i := range many {
		many[i] = item(fmt.Sprint(i), protocol.TodoPending)
	}
	for _, tc := range []struct {
		name  string
		items []protocol.TodoItem
		err   string
	}{
		{"empty", nil, ""},
		{"one of each", []protocol.TodoItem{item("a", "pending"), item("b", "in_progress"), item("c", "completed")}, ""},
		{"two in progress", []protocol.TodoItem{item("a", "in_progress"), item("b", "in_progress")}, "2 items are in_progress"},
		{"duplicate id", []protocol.TodoItem{item("a", "pending"), item("a", "completed")}, `id "a" is used twice`},
		{"bad status", []protocol.TodoItem{item("a", "done")}, `status "done"`},
		{"bad priority", []protocol.TodoItem{{ID: "a", Content: "x", Status: "pending", Priority: "urgent"}}, `priority "urgent"`},
		{"empty content", []protocol.TodoItem{{ID: "a", Status: "pending"}}, "content must be"},
		{"long content", []protocol.TodoItem{{ID: "a", Content: strings.Repeat("é", MaxContent+1), Status: "pending"}}, "content must be"},
		{"empty id", []protocol.TodoItem{{Content: "x", Status: "pending"}}, "id must be"},
		{"too many", many, "over the limit of 100"},
	} {
		err := Validate("", tc.items)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestStoreByChat: each chat has its own list; a refused list changes
// nothing; the oldest chat is dropped past the bound.
func TestStoreByChat(t *testing.T) {
	s := NewStore()
	a := []protocol.TodoItem{item("1", "in_progress")}
	if _, err := s.Replace("", a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Replace("chat-2", []protocol.TodoItem{item("x", "pending")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Replace("", []protocol.TodoItem{item("1", "in_progress"), item("2", "in_progress")}); err == nil {
		t.Fatal("two in progress accepted")
	}
	if d := cmp.Diff(a, s.List("")); d != "" {
		t.Errorf("a refused list changed the stored one:\n%s", d)
	}
	if got := s.List("nobody"); got == nil || len(got) != 0 {
		t.Errorf("unknown chat: %#v", got)
	}
	for i := range maxChats {
		s.Replace(fmt.Sprint("c", i), nil)
	}
	if len(s.lists) != maxChats || len(s.List("")) != 0 {
		t.Errorf("%d chats kept; the oldest should have gone", len(s.lists))
	}
}
