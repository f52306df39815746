package protocol

// Checkpoints and undo (SPEC §2, README "Undo and checkpoints"): the
// sidecar records every change its file tools make; a host marks points
// with checkpoint.create and takes changes back with checkpoint.restore
// or tool.undo.
const (
	MethodCheckpointCreate  = "checkpoint.create"
	MethodCheckpointList    = "checkpoint.list"
	MethodCheckpointDiff    = "checkpoint.diff"
	MethodCheckpointRestore = "checkpoint.restore"
	MethodToolUndo          = "tool.undo"
)

// CheckpointCreateParams are the params of checkpoint.create.
type CheckpointCreateParams struct {
	Label string `json:"label,omitempty"`
}

// CheckpointInfo describes one checkpoint.
type CheckpointInfo struct {
	ID    string `json:"id"`
	Label string `json:"label,omitempty"`
	Time  string `json:"time"` // RFC 3339, UTC
	// Changed are the files the tools changed since the checkpoint, in
	// the order they were first changed.
	Changed []string `json:"changed"`
	// CommandsSince counts the calls since the checkpoint of tools whose
	// changes are not recorded (bash, run_code, local plugin tools).
	CommandsSince int `json:"commandsSince"`
}

// CheckpointListParams are the params of checkpoint.list (none).
type CheckpointListParams struct{}

// CheckpointListResult is the result of checkpoint.list, oldest first.
type CheckpointListResult struct {
	Checkpoints []CheckpointInfo `json:"checkpoints"`
}

// CheckpointDiffParams are the params of checkpoint.diff.
type CheckpointDiffParams struct {
	From string `json:"from"`
	To   string `json:"to,omitempty"` // a later checkpoint; "" is the files as they are now
}

// CheckpointDiffResult is the result of checkpoint.diff.
type CheckpointDiffResult struct {
	Diff    string   `json:"diff"`    // unified diff, a/ and b/ paths relative to the workspace
	NotKept []string `json:"notKept"` // files whose content on one side was not kept
}

// CheckpointRestoreParams are the params of checkpoint.restore.
type CheckpointRestoreParams struct {
	ID    string   `json:"id"`
	Paths []string `json:"paths,omitempty"` // only these files (relative to the workspace or absolute)
	Force bool     `json:"force,omitempty"` // overwrite conflicted files too
}

// ToolUndoParams are the params of tool.undo.
type ToolUndoParams struct {
	CallID string `json:"callId"`
	Force  bool   `json:"force,omitempty"`
}

// Conflict is a file a restore left alone: its content is not what the
// tools last wrote.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// RestoreResult is the result of checkpoint.restore and tool.undo.
type RestoreResult struct {
	// CallID is the id the restore itself is recorded under: tool.undo it
	// to take the restore back.
	CallID     string     `json:"callId"`
	Restored   []string   `json:"restored"`
	Conflicted []Conflict `json:"conflicted"`
	NotKept    []string   `json:"notKept"`
	// CommandsRan is set when commands ran since the checkpoint (or the
	// call): what they changed is not recorded and was not restored.
	CommandsRan bool   `json:"commandsRan"`
	Note        string `json:"note,omitempty"`
}
