package checkpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// Tools are the checkpoint methods as tools, for `steerable-sidecar mcp`,
// where the client has no host methods to call: checkpoint_create,
// checkpoint_list, checkpoint_diff, checkpoint_restore and tool_undo, with
// the methods' params and results. exposure is their tier: hidden (the
// default) keeps them out of the model's list and of tool_search, so the
// user's client calls them by name; deferred lets the model find them;
// direct lists them.
func (s *Service) Tools(exposure protocol.Exposure) []tools.Tool {
	desc := func(name, method, params, what string, mode protocol.Mode) protocol.ToolDescriptor {
		return protocol.ToolDescriptor{Name: name, Description: what + " (the " + method + " method as a tool; README \"Undo and checkpoints\").",
			Parameters: toolParams(params), Mode: mode, Exposure: exposure}
	}
	return []tools.Tool{
		tools.New(desc("checkpoint_create", protocol.MethodCheckpointCreate, "checkpoint.create.params.json",
			"Mark a point in the workspace's change log, to restore or diff against later", protocol.ModeRead), s.createTool),
		tools.New(desc("checkpoint_list", protocol.MethodCheckpointList, "",
			"List the checkpoints, oldest first, each with the files the tools changed since it", protocol.ModeRead), s.listTool),
		tools.New(desc("checkpoint_diff", protocol.MethodCheckpointDiff, "checkpoint.diff.params.json",
			"Show the tools' changes since a checkpoint (or between two) as a unified diff", protocol.ModeRead), s.diffTool),
		tools.New(desc("checkpoint_restore", protocol.MethodCheckpointRestore, "checkpoint.restore.params.json",
			"Put the files the tools changed since a checkpoint back as they were; a file changed since by anyone else is a conflict, left alone unless force", protocol.ModeSafeWrite), s.restoreTool),
		tools.New(desc("tool_undo", protocol.MethodToolUndo, "tool.undo.params.json",
			"Take back the file changes of one tool call, named by the callId in its result's _meta; a file changed since is a conflict, left alone unless force", protocol.ModeSafeWrite), s.undoTool),
	}
}

// toolParams is a method's params schema as a tool's parameters: the
// protocol's file without the keywords that name the file ($id, title,
// examples), which an MCP client would take for the tool's own.
func toolParams(name string) json.RawMessage {
	schema := map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{}}
	if name != "" {
		b, err := protocol.Schemas.ReadFile("schema/" + name)
		if err != nil {
			panic(err) // an embedded file: a build mistake
		}
		schema = map[string]any{}
		if err := json.Unmarshal(b, &schema); err != nil {
			panic(fmt.Sprintf("%s: %v", name, err))
		}
		for _, k := range []string{"$schema", "$id", "title", "examples"} {
			delete(schema, k)
		}
	}
	b, _ := json.Marshal(schema)
	return b
}

func (s *Service) createTool(_ context.Context, _ tools.Call, p protocol.CheckpointCreateParams) protocol.ToolResult {
	c, err := s.Create(p.Label)
	if err != nil {
		return refused(err)
	}
	return tools.OK("Checkpoint "+c.ID+" created.", asData(c))
}

func (s *Service) listTool(_ context.Context, _ tools.Call, _ protocol.CheckpointListParams) protocol.ToolResult {
	l := s.List()
	return tools.OK(fmt.Sprintf("%d checkpoints.", len(l.Checkpoints)), asData(l))
}

func (s *Service) diffTool(_ context.Context, _ tools.Call, p protocol.CheckpointDiffParams) protocol.ToolResult {
	d, err := s.Diff(p)
	if err != nil {
		return refused(err)
	}
	msg := "No changes since " + p.From + "."
	if d.Diff != "" {
		msg = "Changes since " + p.From + ":\n" + d.Diff
	}
	return tools.OK(msg, asData(d))
}

func (s *Service) restoreTool(ctx context.Context, _ tools.Call, p protocol.CheckpointRestoreParams) protocol.ToolResult {
	r, err := s.Restore(ctx, p)
	if err != nil {
		return refused(err)
	}
	return tools.OK(restoreMessage(r), asData(r))
}

func (s *Service) undoTool(ctx context.Context, _ tools.Call, p protocol.ToolUndoParams) protocol.ToolResult {
	r, err := s.Undo(ctx, p)
	if err != nil {
		return refused(err)
	}
	return tools.OK(restoreMessage(r), asData(r))
}

// restoreMessage says what a restore did, conflicts first.
func restoreMessage(r protocol.RestoreResult) string {
	var b strings.Builder
	files := "files"
	if len(r.Restored) == 1 {
		files = "file"
	}
	fmt.Fprintf(&b, "Restored %d %s (take this back with tool_undo callId %s).", len(r.Restored), files, r.CallID)
	for _, c := range r.Conflicted {
		fmt.Fprintf(&b, "\nConflict, left alone: %s (%s); force:true overwrites it.", c.Path, c.Reason)
	}
	if len(r.NotKept) > 0 {
		fmt.Fprintf(&b, "\nNot kept, not restored: %s.", strings.Join(r.NotKept, ", "))
	}
	if r.Note != "" {
		b.WriteString("\n" + r.Note + ".")
	}
	return b.String()
}

// refused is a method's error as a result the caller can act on.
func refused(err error) protocol.ToolResult {
	return tools.Followup("%v", err)
}

// asData is a method's result as a tool result's data.
func asData(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}
