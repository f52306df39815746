package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"

	"steerable.dev/sidecar/internal/notebook"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

type notebookEditArgs struct {
	Path            string  `json:"path"`
	CellID          string  `json:"cellId"`
	NewSource       *string `json:"newSource"`
	CellType        string  `json:"cellType"`
	EditMode        string  `json:"editMode"`
	ExpectedVersion string  `json:"expectedVersion"`
}

func newNotebookEdit(env fileEnv) Tool {
	return New(protocol.ToolDescriptor{
		Name: "notebook_edit",
		Description: "Edit one cell of a Jupyter notebook (.ipynb): replace its source (and optionally its type), insert a new cell after it, or delete it. " +
			"Cells are named by the ids read_file shows. The edited cell's outputs and execution count are cleared; every other cell and the file's formatting stay byte for byte. " +
			"The notebook must have been read in this session and not changed since (or pass expectedVersion). Returns the new version.",
		Mode: protocol.ModeSafeWrite,
		Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path","cellId","editMode"],"properties":{` +
			`"path":{"type":"string","description":"notebook path, relative to the workspace or absolute"},` +
			`"cellId":{"type":"string","description":"the cell to replace or delete; for insert, the cell to insert after (\"\" inserts at the top)"},` +
			`"newSource":{"type":"string","description":"the cell's whole new source (replace, insert)"},` +
			`"cellType":{"enum":["code","markdown","raw"],"description":"the cell's type; replace keeps it when omitted, insert makes a code cell"},` +
			`"editMode":{"enum":["replace","insert","delete"]},` +
			`"expectedVersion":` + versionSchema + `}}`),
	}, env.notebookEdit)
}

func (e fileEnv) notebookEdit(ctx context.Context, call Call, a notebookEditArgs) protocol.ToolResult {
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
		return Followup("%s does not exist; create a notebook with write_file (nbformat 4 JSON) first", abs)
	}
	if refused := e.gate(abs, cur, a.ExpectedVersion, false); refused != nil {
		return refusal(refused)
	}
	nb, err := notebook.Parse(unsafe.Slice(unsafe.StringData(cur.content), len(cur.content)))
	if err != nil {
		return Followup("%s: %v; notebook_edit edits nbformat 4 notebooks only (change other JSON with edit_file)", abs, err)
	}
	out, id, err := nb.Apply(notebook.Edit{CellID: a.CellID, Mode: a.EditMode, Source: a.NewSource, Type: a.CellType})
	if err != nil {
		return notebookFailure(abs, err)
	}
	updated := string(out)
	if r := e.checkSize(abs, updated); r != nil {
		return refusal(r)
	}
	version := readstate.OfString(updated)
	if _, err := e.ws.WriteFileAs(origin(call, "notebook_edit"), abs, updated, &cur.content); err != nil {
		return refusal(fileFailure(abs, err))
	}
	e.refresh(abs, version)
	return OK(notebookMessage(abs, a.EditMode, id, a.CellID), map[string]any{
		"path": abs, "version": version, "cellId": id, "editMode": a.EditMode, "cells": len(nb.Cells) + cellDelta[a.EditMode],
	})
}

var cellDelta = map[string]int{notebook.Insert: 1, notebook.Delete: -1}

func notebookMessage(abs, mode, id, after string) string {
	switch mode {
	case notebook.Insert:
		if after == "" {
			return fmt.Sprintf("Inserted cell %s at the top of %s.", id, abs)
		}
		return fmt.Sprintf("Inserted cell %s after %s in %s.", id, after, abs)
	case notebook.Delete:
		return fmt.Sprintf("Deleted cell %s from %s.", id, abs)
	}
	return fmt.Sprintf("Replaced the source of cell %s in %s; its outputs were cleared.", id, abs)
}

func notebookFailure(abs string, err error) protocol.ToolResult {
	var ee *notebook.EditError
	r := Followup("%s: %v", abs, err)
	if errors.As(err, &ee) {
		r.Data = map[string]any{"path": abs, "cellIds": ee.IDs}
	}
	return r
}
