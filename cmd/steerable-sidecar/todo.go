package main

import (
	"context"

	"steerable.dev/sidecar/internal/todo"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// hostTodoNotifier tells the host that todo_write changed a list, as the
// notification todo.updated over the reverse channel every command builds
// its tools with (the rpc Peer when serving; tools.NoHost, which drops it,
// for the CLI).
type hostTodoNotifier struct{ host tools.Host }

// TodoUpdated implements todo.Notifier.
func (n hostTodoNotifier) TodoUpdated(ctx context.Context, p protocol.TodoUpdatedParams) {
	_ = n.host.Notify(ctx, protocol.NotificationTodoUpdated, p) // a host that cannot hear it still has todo.list
}

// wireTodos gives todo_write its list and its notifier; the list is the
// app's, for todo.list.
func (a *app) wireTodos(deps *tools.Deps, host tools.Host) {
	a.todos = todo.NewStore()
	deps.Todos, deps.TodoNotifier = a.todos, hostTodoNotifier{host}
}

var _ todo.Notifier = hostTodoNotifier{}
