package tools

import (
	"context"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/textedit"
)

// The planning steps of apply_patch, one per operation. Each checks the
// disk under the caller's locks and records the change, the new version,
// the file entry and the diff; nothing is written until every file passes.

func (e fileEnv) planAdd(plan *patchPlan, abs, content string) error {
	if _, err := e.ws.Lstat(abs); err == nil {
		return refuse(nil, "cannot add %s: it already exists; read it and change it with \"*** Update File:\" instead", abs)
	}
	if r := e.checkSize(abs, content); r != nil {
		return r
	}
	plan.changes = append(plan.changes, files.Change{Path: abs, Data: content})
	plan.record(abs, textedit.OpAdd, "", content)
	_, to := e.diffLabels(abs, abs)
	plan.diffs = append(plan.diffs, textedit.DiffStrings("/dev/null", to, "", content))
	return nil
}

func (e fileEnv) planDelete(ctx context.Context, plan *patchPlan, abs string) error {
	cur, refused := e.hash(ctx, abs)
	switch {
	case refused != nil:
		return refused
	case !cur.exists:
		return refuse(nil, "cannot delete %s: it does not exist; check the path", abs)
	}
	if refused := e.gate(abs, cur, "", false); refused != nil {
		return refused
	}
	plan.changes = append(plan.changes, files.Change{Path: abs, Delete: true, Exists: true})
	plan.files = append(plan.files, map[string]any{"path": abs, "op": textedit.OpDelete})
	plan.forget = append(plan.forget, abs)
	from, _ := e.diffLabels(abs, abs)
	plan.diffs = append(plan.diffs, "--- "+from+"\n+++ /dev/null\n")
	return nil
}

func (e fileEnv) planUpdate(plan *patchPlan, abs string, cur onDisk, updated string) error {
	if r := e.checkSize(abs, updated); r != nil {
		return r
	}
	plan.changes = append(plan.changes, files.Change{Path: abs, Data: updated, Prev: cur.content, Exists: true})
	plan.record(abs, textedit.OpUpdate, "", updated)
	plan.partial[abs] = e.partial(abs)
	from, to := e.diffLabels(abs, abs)
	plan.diffs = append(plan.diffs, textedit.DiffStrings(from, to, cur.content, updated))
	return nil
}

func (e fileEnv) planMove(plan *patchPlan, abs, dest string, cur onDisk, updated string) error {
	if _, err := e.ws.Lstat(dest); err == nil {
		return refuse(nil, "cannot move %s to %s: the destination exists; pick another path or delete it in the patch first", abs, dest)
	}
	if r := e.checkSize(dest, updated); r != nil {
		return r
	}
	plan.changes = append(plan.changes,
		files.Change{Path: dest, Data: updated, Mode: cur.mode & files.KeptModeBits},
		files.Change{Path: abs, Delete: true, Exists: true})
	plan.record(dest, textedit.OpMove, abs, updated)
	plan.partial[dest] = e.partial(abs) // the moved file is the one the model saw in part
	plan.forget = append(plan.forget, abs)
	from, to := e.diffLabels(abs, dest)
	if d := textedit.DiffStrings(from, to, cur.content, updated); d != "" {
		plan.diffs = append(plan.diffs, d)
	} else {
		plan.diffs = append(plan.diffs, "--- "+from+"\n+++ "+to+"\n")
	}
	return nil
}

// record adds a written file's version and entry.
func (plan *patchPlan) record(abs, op, from, content string) {
	plan.versions[abs] = readstate.OfString(content)
	f := map[string]any{"path": abs, "op": op}
	if from != "" {
		f["from"] = from
	}
	plan.files = append(plan.files, f)
}
