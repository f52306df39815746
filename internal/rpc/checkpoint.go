package rpc

import (
	"context"

	"steerable.dev/sidecar/protocol"
)

// Checkpoints answers checkpoint.* and tool.undo (internal/checkpoint's
// Service): marks in the workspace's change log, diffs, and restores that
// compare before they write.
type Checkpoints interface {
	Create(label string) (protocol.CheckpointInfo, error)
	List() protocol.CheckpointListResult
	Diff(p protocol.CheckpointDiffParams) (protocol.CheckpointDiffResult, error)
	Restore(ctx context.Context, p protocol.CheckpointRestoreParams) (protocol.RestoreResult, error)
	Undo(ctx context.Context, p protocol.ToolUndoParams) (protocol.RestoreResult, error)
}

// withCheckpointMethods adds the checkpoint methods to the table t.
func withCheckpointMethods(t map[string]method) map[string]method {
	t[protocol.MethodCheckpointCreate] = withParams("checkpoint.create.params.json", nil, checkpointCreate)
	t[protocol.MethodCheckpointList] = noParams(checkpointList)
	t[protocol.MethodCheckpointDiff] = withParams("checkpoint.diff.params.json", nil, checkpointDiff)
	t[protocol.MethodCheckpointRestore] = withParams("checkpoint.restore.params.json", nil, checkpointRestore)
	t[protocol.MethodToolUndo] = withParams("tool.undo.params.json", nil, toolUndo)
	return t
}

// errNoCheckpoints refuses the methods when nothing is recorded.
var errNoCheckpoints = protocol.Errorf(protocol.CodePolicyDenied,
	"checkpoints are off: STEERABLE_CHECKPOINTS=0, or the store could not be opened (see checks.checkpoints in system.ping)")

func checkpointCreate(_ context.Context, s *Server, p protocol.CheckpointCreateParams) (any, error) {
	if s.svc.Checkpoints == nil {
		return nil, errNoCheckpoints
	}
	return s.svc.Checkpoints.Create(p.Label)
}

func checkpointList(_ context.Context, s *Server) (any, error) {
	if s.svc.Checkpoints == nil {
		return nil, errNoCheckpoints
	}
	return s.svc.Checkpoints.List(), nil
}

func checkpointDiff(_ context.Context, s *Server, p protocol.CheckpointDiffParams) (any, error) {
	if s.svc.Checkpoints == nil {
		return nil, errNoCheckpoints
	}
	return s.svc.Checkpoints.Diff(p)
}

func checkpointRestore(ctx context.Context, s *Server, p protocol.CheckpointRestoreParams) (any, error) {
	if s.svc.Checkpoints == nil {
		return nil, errNoCheckpoints
	}
	return s.svc.Checkpoints.Restore(ctx, p)
}

func toolUndo(ctx context.Context, s *Server, p protocol.ToolUndoParams) (any, error) {
	if s.svc.Checkpoints == nil {
		return nil, errNoCheckpoints
	}
	return s.svc.Checkpoints.Undo(ctx, p)
}
