package main

import (
	"steerable.dev/sidecar/internal/todo"
	"steerable.dev/sidecar/internal/tools"
)

// wireTodos gives todo_write its list and its notifier: the reverse channel
// every command builds its tools with, which tells the host todo.updated
// (the rpc Peer when serving; tools.NoHost, which drops it, for the CLI).
// The list is the app's, for todo.list.
func (a *app) wireTodos(deps *tools.Deps, host tools.Host) {
	a.todos = todo.NewStore()
	deps.Todos, deps.TodoNotifier = a.todos, host
}

var _ todo.Notifier = tools.Host(nil)
