package rpc

import (
	"context"

	"steerable.dev/sidecar/protocol"
)

// todoList answers todo.list: the list todo_write keeps for the chat.
func todoList(_ context.Context, s *Server, p protocol.TodoListParams) (any, error) {
	if s.svc.Todos == nil {
		return nil, errNoTodos
	}
	return protocol.TodoListResult{Todos: s.svc.Todos.List(p.ChatID)}, nil
}

var errNoTodos = protocol.Errorf(protocol.CodePolicyDenied, "this sidecar has no todo_write, so it keeps no todo list")
