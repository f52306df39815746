package checkpoint

import (
	"context"
	"encoding/hex"
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"time"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

// Service answers the host's checkpoint methods over a store, writing
// restores through the workspace (so they are recorded too) under the
// read state's path locks.
type Service struct {
	store *Store
	ws    *files.Workspace
	state *readstate.Store
}

// NewService is the methods over store for the workspace ws, whose
// recorder store must be.
func NewService(store *Store, ws *files.Workspace, state *readstate.Store) *Service {
	return &Service{store: store, ws: ws, state: state}
}

// The tool names restores are recorded under.
const (
	toolRestore = "checkpoint.restore"
	toolUndo    = "tool.undo"
)

// commandsNote is the reply's note when commands ran since the point.
const commandsNote = "commands ran since then (bash, run_code, local plugin tools); changes made by commands are not recorded and were not restored"

// Create marks a checkpoint.
func (s *Service) Create(label string) (protocol.CheckpointInfo, error) {
	c, err := s.store.Create(label)
	if err != nil {
		return protocol.CheckpointInfo{}, protocol.Errorf(protocol.CodeInternal, "checkpoint.create: %v", err)
	}
	return protocol.CheckpointInfo{ID: c.ID, Label: c.Label, Time: protocol.Time(c.Time), Changed: []string{}}, nil
}

// List is every checkpoint still in the store, oldest first.
func (s *Service) List() protocol.CheckpointListResult {
	sn := s.store.snapshot()
	out := protocol.CheckpointListResult{Checkpoints: []protocol.CheckpointInfo{}}
	for _, c := range sn.checkpoints {
		info := protocol.CheckpointInfo{ID: c.ID, Label: c.Label, Time: protocol.Time(c.Time), Changed: []string{}}
		for _, p := range pathsOf(since(sn.records, c.Seq)) {
			info.Changed = append(info.Changed, s.ws.Rel(p))
		}
		info.CommandsSince = commandsSince(sn.commands, c.Seq)
		out.Checkpoints = append(out.Checkpoints, info)
	}
	return out
}

// since is the records after seq.
func since(rs []Record, seq int64) []Record {
	i, _ := slices.BinarySearchFunc(rs, seq+1, func(r Record, s int64) int { return int(r.Seq - s) })
	return rs[i:]
}

func commandsSince(cs []Command, seq int64) int {
	n := 0
	for _, c := range cs {
		if c.Seq > seq {
			n++
		}
	}
	return n
}

// pathsOf is the distinct paths of rs in the order they first appear.
func pathsOf(rs []Record) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		if !seen[r.Path] {
			seen[r.Path] = true
			out = append(out, r.Path)
		}
	}
	return out
}

// span is what a restore does to one file: put target back if the file
// holds expect (what the tools last wrote).
type span struct {
	path           string
	target, expect Side
}

// spans gathers, per path of rs, the first record's before and the last
// record's after.
func spans(rs []Record) []span {
	at := map[string]int{}
	var out []span
	for _, r := range rs {
		if i, ok := at[r.Path]; ok {
			out[i].expect = r.After
			continue
		}
		at[r.Path] = len(out)
		out = append(out, span{path: r.Path, target: r.Before, expect: r.After})
	}
	return out
}

// Restore puts the files the tools changed since checkpoint p.ID back.
func (s *Service) Restore(ctx context.Context, p protocol.CheckpointRestoreParams) (protocol.RestoreResult, error) {
	sn := s.store.snapshot()
	c, ok := sn.checkpoint(p.ID)
	if !ok {
		return protocol.RestoreResult{}, unknownCheckpoint(p.ID)
	}
	sp := spans(since(sn.records, c.Seq))
	if p.Paths != nil {
		var err error
		if sp, err = s.only(sp, p.Paths); err != nil {
			return protocol.RestoreResult{}, err
		}
	}
	res, err := s.apply(ctx, toolRestore, sp, p.Force)
	if err == nil && commandsSince(sn.commands, c.Seq) > 0 {
		res.CommandsRan, res.Note = true, commandsNote
	}
	return res, err
}

// only keeps the spans of the paths asked for.
func (s *Service) only(sp []span, paths []string) ([]span, error) {
	want := map[string]bool{}
	for _, p := range paths {
		abs, err := s.ws.Resolve(p)
		if err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "paths: %v", err)
		}
		want[abs] = true
	}
	return slices.DeleteFunc(sp, func(x span) bool { return !want[x.path] }), nil
}

// Undo takes back the changes of one tool call (and of the calls a
// run_code call made, whose ids extend its own).
func (s *Service) Undo(ctx context.Context, p protocol.ToolUndoParams) (protocol.RestoreResult, error) {
	sn := s.store.snapshot()
	var rs []Record
	for _, r := range sn.records {
		if r.CallID == p.CallID || (len(r.CallID) > len(p.CallID) && r.CallID[:len(p.CallID)+1] == p.CallID+".") {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return protocol.RestoreResult{}, protocol.Errorf(protocol.CodeInvalidParams, "no recorded change of call %q (it changed no file, or the store evicted it)", p.CallID)
	}
	res, err := s.apply(ctx, toolUndo, spans(rs), p.Force)
	if err == nil && commandsSince(sn.commands, rs[0].Seq) > 0 {
		res.CommandsRan, res.Note = true, commandsNote
	}
	return res, err
}

func unknownCheckpoint(id string) error {
	return protocol.Errorf(protocol.CodeInvalidParams, "no checkpoint %q (see checkpoint.list; the oldest are evicted past STEERABLE_CHECKPOINT_MAX_MB)", id)
}

// restoreSeq numbers restores within the process.
var restoreSeq = func() func() string {
	var n int64
	start := strconv.FormatInt(time.Now().UnixNano(), 36)
	return func() string { n++; return "restore-" + start + "-" + strconv.FormatInt(n, 10) }
}()

// apply compares each file with what the tools last wrote and writes the
// target back where they match (or force), as one commit.
func (s *Service) apply(ctx context.Context, tool string, sp []span, force bool) (protocol.RestoreResult, error) {
	res := protocol.RestoreResult{Restored: []string{}, Conflicted: []protocol.Conflict{}, NotKept: []string{}}
	paths := make([]string, len(sp))
	for i, x := range sp {
		paths[i] = x.path
	}
	unlock := s.state.Lock(paths...)
	defer unlock()
	var changes []files.Change
	var done []span
	for _, x := range sp {
		rel := s.ws.Rel(x.path)
		if x.target.State == StateNotKept {
			res.NotKept = append(res.NotKept, rel)
			continue
		}
		cur, err := s.current(x.path)
		if err != nil {
			res.Conflicted = append(res.Conflicted, protocol.Conflict{Path: rel, Reason: err.Error()})
			continue
		}
		if reason := cur.differs(x.expect); reason != "" && !force {
			res.Conflicted = append(res.Conflicted, protocol.Conflict{Path: rel, Reason: reason})
			continue
		}
		ch, err := s.change(x, cur)
		if err != nil {
			return res, protocol.Errorf(protocol.CodeInternal, "%s: %v", rel, err)
		}
		if ch != nil {
			changes = append(changes, *ch)
		}
		done = append(done, x)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	res.CallID = restoreSeq()
	if len(changes) > 0 {
		if err := s.ws.CommitAs(files.Origin{CallID: res.CallID, Tool: tool}, changes); err != nil {
			return res, protocol.Errorf(protocol.CodeInternal, "the restore changed no file: %v", err)
		}
	}
	for _, x := range done {
		res.Restored = append(res.Restored, s.ws.Rel(x.path))
		if x.target.State == StateAbsent {
			s.state.Forget(x.path)
		} else {
			s.state.Set(x.path, readstate.Entry{Version: x.target.Version})
		}
	}
	return res, nil
}

// onDisk is a file as a restore finds it.
type onDisk struct {
	exists  bool
	data    string
	mode    fs.FileMode
	version string
}

func (s *Service) current(abs string) (onDisk, error) {
	data, fi, err := s.ws.ReadFile(abs, s.store.Limit())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return onDisk{}, nil
	case err != nil:
		return onDisk{}, err
	}
	h := sum(data)
	return onDisk{exists: true, data: data, mode: fi.Mode() & files.KeptModeBits, version: hex.EncodeToString(h[:])}, nil
}

// differs says how the file is not what the tools last wrote ("" if it is).
func (d onDisk) differs(expect Side) string {
	switch {
	case expect.State == StateAbsent && d.exists:
		return "the file was created after the tools removed it"
	case expect.State != StateAbsent && !d.exists:
		return "the file was removed after the tools wrote it"
	case expect.State != StateAbsent && expect.Version != d.version:
		return "the file changed after the tools wrote it"
	}
	return ""
}

// change is the write that puts x.target back over cur; nil when the file
// already is the target.
func (s *Service) change(x span, cur onDisk) (*files.Change, error) {
	if x.target.State == StateAbsent {
		if !cur.exists {
			return nil, nil
		}
		return &files.Change{Path: x.path, Delete: true, Exists: true, Prev: cur.data}, nil
	}
	mode := fs.FileMode(x.target.Mode)
	if cur.exists && cur.version == x.target.Version && cur.mode == mode {
		return nil, nil
	}
	data, err := s.store.content(x.target.Version)
	if err != nil {
		return nil, err
	}
	if mode == 0 {
		mode = files.DefaultMode
	}
	return &files.Change{Path: x.path, Data: data, Mode: mode, Prev: cur.data, Exists: cur.exists}, nil
}
