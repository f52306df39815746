package checkpoint

import "time"

// Side states.
const (
	StateAbsent  = "absent"  // no file
	StateKept    = "kept"    // the content is in the store
	StateNotKept = "notKept" // a file was there, its content was not kept (over the size limit)
)

// Side is a file's state on one side of a recorded change.
type Side struct {
	State   string `json:"s"`
	Version string `json:"v,omitempty"` // hex SHA-256 of the content (the read-state version), when known
	Mode    uint32 `json:"m,omitempty"` // permission and special bits
}

// Record is one file one tool call changed.
type Record struct {
	Seq    int64     `json:"seq"`
	Time   time.Time `json:"t"`
	CallID string    `json:"call,omitempty"`
	Tool   string    `json:"tool"`
	Path   string    `json:"path"`
	Before Side      `json:"before"`
	After  Side      `json:"after"`
	seg    int64
}

// Checkpoint is a point in the log a restore can return to.
type Checkpoint struct {
	ID    string    `json:"id"`
	Label string    `json:"label,omitempty"`
	Time  time.Time `json:"t"`
	Seq   int64     `json:"seq"` // records after it have a larger Seq
	seg   int64
}

// Command is a call of a tool whose changes are not recorded (bash,
// run_code's own code, a plugin's local tool).
type Command struct {
	Seq  int64     `json:"seq"`
	Time time.Time `json:"t"`
	Tool string    `json:"tool"`
	seg  int64
}
