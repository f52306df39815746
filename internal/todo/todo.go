// Package todo keeps the model's plan: the list todo_write replaces whole
// on every call, one per chat (the host may run several chats through one
// sidecar; the original implementation keyed them the same way), read
// back by the host's todo.list and pushed to it as todo.updated (SPEC §2).
// The list lives in the process, like the read state: it is the session's
// working memory, not a document in the workspace.
package todo

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"steerable.dev/sidecar/protocol"
)

// Bounds of one list.
const (
	MaxItems      = 100
	MaxContent    = 1000 // characters
	MaxID         = 100  // characters
	maxChats      = 256
	maxChatIDSize = 256
)

// Notifier tells the host that a chat's list changed (todo.updated). It
// must not block past ctx.
type Notifier interface {
	TodoUpdated(ctx context.Context, p protocol.TodoUpdatedParams)
}

// Store holds the lists by chat id ("" for calls without one).
type Store struct {
	mu    sync.Mutex
	lists map[string][]protocol.TodoItem
	order []string // chats by last write, oldest first, for eviction
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{lists: map[string][]protocol.TodoItem{}} }

// List returns a copy of a chat's list (empty, never nil, when none).
func (s *Store) List(chatID string) []protocol.TodoItem {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protocol.TodoItem{}, s.lists[chatID]...)
}

// Replace validates items and stores them as the chat's list. Beyond
// maxChats chats the one written longest ago is dropped.
func (s *Store) Replace(chatID string, items []protocol.TodoItem) ([]protocol.TodoItem, error) {
	if err := Validate(chatID, items); err != nil {
		return nil, err
	}
	list := append([]protocol.TodoItem{}, items...)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.order = append(slices.DeleteFunc(s.order, func(c string) bool { return c == chatID }), chatID)
	if len(s.order) > maxChats {
		delete(s.lists, s.order[0])
		s.order = s.order[1:]
	}
	s.lists[chatID] = list
	return append([]protocol.TodoItem{}, list...), nil
}

// Validate checks a list: at most MaxItems, ids unique and non-empty,
// content non-empty and bounded, statuses and priorities from their sets,
// at most one item in progress. The error says what to fix.
func Validate(chatID string, items []protocol.TodoItem) error {
	if utf8.RuneCountInString(chatID) > maxChatIDSize {
		return fmt.Errorf("chatId is longer than %d characters", maxChatIDSize)
	}
	if len(items) > MaxItems {
		return fmt.Errorf("the list has %d items, over the limit of %d; merge or drop some", len(items), MaxItems)
	}
	seen := map[string]bool{}
	var inProgress []string
	for i, it := range items {
		if err := validItem(i, it); err != nil {
			return err
		}
		if seen[it.ID] {
			return fmt.Errorf("todos[%d]: id %q is used twice; give every item its own id", i, it.ID)
		}
		seen[it.ID] = true
		if it.Status == protocol.TodoInProgress {
			inProgress = append(inProgress, it.ID)
		}
	}
	if len(inProgress) > 1 {
		return fmt.Errorf("%d items are in_progress (%q); keep exactly one in progress at a time and mark the others pending or completed", len(inProgress), inProgress)
	}
	return nil
}

func validItem(i int, it protocol.TodoItem) error {
	switch {
	case it.ID == "" || utf8.RuneCountInString(it.ID) > MaxID:
		return fmt.Errorf("todos[%d]: id must be 1 to %d characters", i, MaxID)
	case it.Content == "" || utf8.RuneCountInString(it.Content) > MaxContent:
		return fmt.Errorf("todos[%d] (%s): content must be 1 to %d characters", i, it.ID, MaxContent)
	case it.Status != protocol.TodoPending && it.Status != protocol.TodoInProgress && it.Status != protocol.TodoCompleted:
		return fmt.Errorf("todos[%d] (%s): status %q; use pending, in_progress or completed", i, it.ID, it.Status)
	case it.Priority != "" && it.Priority != "high" && it.Priority != "medium" && it.Priority != "low":
		return fmt.Errorf("todos[%d] (%s): priority %q; use high, medium or low", i, it.ID, it.Priority)
	}
	return nil
}
