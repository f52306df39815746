package protocol

// todo_write's list, for a host UI (SPEC §2): read back with todo.list,
// pushed with the todo.updated notification.
const (
	MethodTodoList          = "todo.list"
	NotificationTodoUpdated = "todo.updated" // sidecar → host
)

// Todo statuses and priorities.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// TodoItem is one entry of the model's plan.
type TodoItem struct {
	ID       string `json:"id"`
	Content  string `json:"content"`
	Status   string `json:"status"`             // pending | in_progress | completed
	Priority string `json:"priority,omitempty"` // high | medium | low
}

// TodoListParams are the params of todo.list.
type TodoListParams struct {
	ChatID string `json:"chatId,omitempty"`
}

// TodoListResult is the result of todo.list: the list todo_write last
// stored for the chat (empty when none).
type TodoListResult struct {
	Todos []TodoItem `json:"todos"`
}

// TodoUpdatedParams are the params of the todo.updated notification.
type TodoUpdatedParams struct {
	ChatID string     `json:"chatId,omitempty"`
	Todos  []TodoItem `json:"todos"`
}
