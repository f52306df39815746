package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/textedit"
	"steerable.dev/sidecar/protocol"
)

type editFileArgs struct {
	Path            string          `json:"path"`
	Edits           []textedit.Edit `json:"edits"`
	ExpectedVersion string          `json:"expectedVersion"`
}

func newEditFile(env fileEnv) Tool {
	return New(protocol.ToolDescriptor{
		Name: "edit_file",
		Description: "Replace text in an existing file: each edit's oldText must match exactly one place in the file as read " +
			"(tried exactly, then ignoring each line's surrounding whitespace, then folding typographic quotes, dashes and spaces); " +
			"all edits apply or none, and they must not overlap. The file's line endings, BOM and mode are kept. " +
			"The file must have been read in this session and not changed since (or pass expectedVersion). Returns the new version and a unified diff.",
		Mode: protocol.ModeSafeWrite,
		Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path","edits"],"properties":{` +
			`"path":{"type":"string","description":"file path, relative to the workspace or absolute"},` +
			`"edits":{"type":"array","description":"replacements, each matched against the file as it is now","items":{"type":"object","additionalProperties":false,"required":["oldText","newText"],"properties":{` +
			`"oldText":{"type":"string","description":"text to replace, copied from the file; include enough lines to be unique"},` +
			`"newText":{"type":"string","description":"replacement text"}}}},` +
			`"expectedVersion":` + versionSchema + `}}`),
	}, env.editFile)
}

func (e fileEnv) editFile(ctx context.Context, call Call, a editFileArgs) protocol.ToolResult {
	abs, refused := e.resolve(a.Path)
	if refused != nil {
		return refusal(refused)
	}
	unlock := e.state.Lock(abs)
	defer unlock()
	cur, refused := e.load(ctx, abs)
	switch {
	case refused != nil:
		return refusal(refused)
	case !cur.exists:
		return Followup("%s does not exist; create it with write_file", abs)
	}
	if refused := e.gate(abs, cur, a.ExpectedVersion, false); refused != nil {
		return refusal(refused)
	}
	old := cur.content
	reps, matches, err := textedit.Edits(ctx, old, a.Edits)
	switch {
	case ctx.Err() != nil:
		return refusal(cancelled(abs))
	case err != nil:
		return editFailure(abs, err)
	}
	updated := textedit.Apply(old, reps)
	if r := e.checkSize(abs, updated); r != nil {
		return refusal(r)
	}
	version := readstate.OfString(updated)
	if version != cur.version {
		if _, err := e.ws.WriteFileAs(origin(call, "edit_file"), abs, updated, &old); err != nil {
			return refusal(fileFailure(abs, err))
		}
	}
	e.refresh(abs, version)
	from, to := e.diffLabels(abs, abs)
	return OK(fmt.Sprintf("Edited %s (%s).", abs, plural(len(a.Edits), "edit")), map[string]any{
		"path": abs, "version": version, "diff": clipDiff(textedit.Diff(from, to, old, reps)),
		"applied": len(a.Edits), "matches": matches,
	})
}

// editFailure is a refused edit list with its code in data.
func editFailure(abs string, err error) protocol.ToolResult {
	var ee *textedit.EditError
	if !errors.As(err, &ee) {
		return Followup("%s: %v", abs, err)
	}
	r := Followup("%s: %v", abs, err)
	r.Data = map[string]any{"path": abs, "code": ee.Code}
	switch ee.Code {
	case textedit.CodeEmptyOld, textedit.CodeNotFound:
		r.Data["index"] = ee.Index
	case textedit.CodeAmbiguous:
		r.Data["index"], r.Data["count"], r.Data["lines"], r.Data["level"] = ee.Index, ee.Count, ee.Lines, ee.Level
	case textedit.CodeOverlap:
		r.Data["index"], r.Data["other"] = ee.Index, ee.Other
	}
	return r
}
