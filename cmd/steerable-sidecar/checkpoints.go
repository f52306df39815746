package main

import (
	"errors"
	"fmt"

	"steerable.dev/sidecar/internal/checkpoint"
	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/rpc"
	"steerable.dev/sidecar/protocol"
)

// Checkpoints and undo at boot (internal/checkpoint): the workspace's
// change log is opened under the state directory before the file tools,
// so every write they make is recorded. It is a convenience, never a
// condition of serving: any failure to open it is a warning in
// checks.checkpoints, and the methods then answer that it is off.

// checkpointFault is set only by the end-to-end test binary, to kill it
// in the middle of an append to the store; release builds never set it.
var checkpointFault func() checkpoint.Fault

// openCheckpoints opens the workspace's store when STEERABLE_CHECKPOINTS
// is on; it returns the option that makes the workspace record into it
// (nil when off) and sets checks.checkpoints.
func (a *app) openCheckpoints() []files.Option {
	status, msg := protocol.CheckOK, ""
	defer func() { a.checks["checkpoints"] = protocol.Check{Status: status, Message: msg} }()
	if !a.cfg.Checkpoints {
		msg = "off (STEERABLE_CHECKPOINTS=0): file changes are not recorded; checkpoint.* and tool.undo are refused"
		return nil
	}
	ws := string(a.cfg.Workspace)
	if _, problem := stateSubdir(string(a.cfg.StateDir), ws, "checkpoints"); problem != "" {
		status, msg = protocol.CheckWarn, "no checkpoint store ("+problem+"): file changes are not recorded"
		a.log.Warn().Msg(msg)
		return nil
	}
	dir := checkpoint.Dir(string(a.cfg.StateDir), ws)
	opt := checkpoint.Options{MaxBytes: int64(a.cfg.CheckpointMaxMB) << 20, KeepLimit: int64(a.cfg.FileMaxBytes)}
	if checkpointFault != nil {
		opt.Fault = checkpointFault()
	}
	store, err := checkpoint.Open(dir, opt)
	if err != nil {
		status, msg = protocol.CheckWarn, fmt.Sprintf("no checkpoint store (%v): file changes are not recorded", err)
		if errors.Is(err, checkpoint.ErrLocked) {
			msg += "; the other sidecar records them"
		}
		a.log.Warn().Str("dir", dir).Msg(msg)
		return nil
	}
	a.checkpoints = store
	msg = fmt.Sprintf("checkpoint store in %s (%.1f of %d MiB used)", dir, float64(store.Size())/(1<<20), int64(a.cfg.CheckpointMaxMB))
	return []files.Option{files.WithRecorder(store)}
}

// checkpointService is the host methods over the store, once the
// workspace and read state are open; nil when the store is off.
func (a *app) checkpointService() *checkpoint.Service {
	if a.checkpoints == nil {
		return nil
	}
	return checkpoint.NewService(a.checkpoints, a.files, a.readState)
}

// checkpointMethods is the service as rpc sees it; nil (off) stays a nil
// interface, so the methods answer that checkpoints are off.
func (a *app) checkpointMethods() rpc.Checkpoints {
	if a.undo == nil {
		return nil
	}
	return a.undo
}

// closeCheckpoints makes the log durable and releases its lock.
func (a *app) closeCheckpoints() {
	if a.checkpoints == nil {
		return
	}
	if err := a.checkpoints.Close(); err != nil {
		a.log.Warn().Err(err).Msg("closing the checkpoint store")
	}
}
