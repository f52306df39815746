package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"steerable.dev/sidecar/internal/todo"
	"steerable.dev/sidecar/protocol"
)

type todoWriteArgs struct {
	Todos  []protocol.TodoItem `json:"todos"`
	ChatID string              `json:"chatId"`
}

// todoWrite is the model's plan as a tool: it replaces the list, then
// tells the host (todo.updated) so its UI can show it.
type todoWrite struct {
	store    *todo.Store
	notifier todo.Notifier // nil: nobody to tell (the CLI)
}

// NewTodoWrite is todo_write over store; notifier may be nil.
func NewTodoWrite(store *todo.Store, notifier todo.Notifier) Tool {
	tw := todoWrite{store: store, notifier: notifier}
	return New(protocol.ToolDescriptor{
		Name: "todo_write",
		Description: "Keep your plan for the task as a todo list the user can see: each call replaces the whole list. " +
			"Use it for work of three steps or more; mark one item in_progress before you start it and completed as soon as it is done. " +
			"At most one item is in_progress; ids are unique.",
		Mode: protocol.ModeRead, // no workspace side effects: the list lives in the session
		Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","additionalProperties":false,"required":["todos"],"properties":{`+
			`"todos":{"type":"array","maxItems":%d,"description":"the whole list, in order","items":{"type":"object","additionalProperties":false,"required":["id","content","status"],"properties":{`+
			`"id":{"type":"string","minLength":1,"maxLength":%d},`+
			`"content":{"type":"string","minLength":1,"maxLength":%d,"description":"what to do, in the imperative"},`+
			`"status":{"enum":["pending","in_progress","completed"]},`+
			`"priority":{"enum":["high","medium","low"]}}}},`+
			`"chatId":{"type":"string","description":"the conversation the list belongs to, when the host runs several"}}}`, todo.MaxItems, todo.MaxID, todo.MaxContent)),
	}, tw.run)
}

func (tw todoWrite) run(ctx context.Context, _ Call, a todoWriteArgs) protocol.ToolResult {
	list, err := tw.store.Replace(a.ChatID, a.Todos)
	if err != nil {
		return Followup("%v; send the whole list again", err)
	}
	if tw.notifier != nil {
		tw.notifier.TodoUpdated(ctx, protocol.TodoUpdatedParams{ChatID: a.ChatID, Todos: list})
	}
	done := 0
	for _, it := range list {
		if it.Status == protocol.TodoCompleted {
			done++
		}
	}
	items := make([]any, len(list))
	for i, it := range list {
		m := map[string]any{"id": it.ID, "content": it.Content, "status": it.Status}
		if it.Priority != "" {
			m["priority"] = it.Priority
		}
		items[i] = m
	}
	return OK(fmt.Sprintf("Todo list updated: %s, %d completed.", plural(len(list), "item"), done), map[string]any{"todos": items})
}
