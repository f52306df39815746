package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/textedit"
	"steerable.dev/sidecar/protocol"
)

type applyPatchArgs struct {
	Patch string `json:"patch"`
}

func newApplyPatch(env fileEnv) Tool {
	return New(protocol.ToolDescriptor{
		Name: "apply_patch",
		Description: "Add, delete, update and rename files with one patch; every file changes or none does. Format:\n" +
			"*** Begin Patch\n*** Add File: path (then each line of the file prefixed with +)\n*** Delete File: path\n" +
			"*** Update File: path\n*** Move to: new/path (optional)\n@@ a line to find first (optional; bare @@ allowed)\n" +
			" context line\n-removed line\n+added line\n*** End of File (optional: the hunk is at the end of the file)\n*** End Patch\n" +
			"Paths are relative to the workspace. Files updated or deleted must have been read in this session and not changed since.",
		Mode: protocol.ModeSafeWrite,
		Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["patch"],"properties":{` +
			`"patch":{"type":"string","description":"the whole patch, from *** Begin Patch to *** End Patch"}}}`),
	}, env.applyPatch)
}

func (e fileEnv) applyPatch(ctx context.Context, call Call, a applyPatchArgs) protocol.ToolResult {
	fps, err := textedit.ParsePatch(a.Patch)
	if err != nil {
		return Followup("%v; see the format in apply_patch's description", err)
	}
	paths, refused := e.resolvePatchPaths(fps)
	if refused != nil {
		return refusal(refused)
	}
	unlock := e.state.Lock(paths.all...)
	defer unlock()
	plan := &patchPlan{versions: map[string]string{}, partial: map[string]bool{}}
	for i, fp := range fps {
		if refused := e.planFile(ctx, plan, fp, paths.of[i]); refused != nil {
			return refusal(refused)
		}
	}
	if ctx.Err() != nil {
		return refusal(patchCancelled())
	}
	if err := e.ws.CommitAs(origin(call, "apply_patch"), plan.changes); err != nil {
		return Followup("the patch was not applied and no file was changed: %v", err)
	}
	for _, p := range plan.forget {
		e.state.Forget(p)
	}
	for p, v := range plan.versions {
		e.state.Set(p, readstate.Entry{Version: v, Partial: plan.partial[p]})
	}
	return OK(fmt.Sprintf("Applied the patch to %s.", plural(len(fps), "file")), map[string]any{
		"versions": plan.versions, "files": plan.files, "diff": clipDiff(strings.Join(plan.diffs, "")),
	})
}

// patchPaths are the resolved paths of a patch: per section [path, moveTo]
// and all of them, each at most once.
type patchPaths struct {
	of  [][2]string
	all []string
}

func (e fileEnv) resolvePatchPaths(fps []textedit.FilePatch) (patchPaths, error) {
	var pp patchPaths
	seen := map[string]int{}
	for _, fp := range fps {
		var pair [2]string
		for j, p := range []string{fp.Path, fp.MoveTo} {
			if p == "" {
				continue
			}
			abs, refused := e.resolve(p)
			if refused != nil {
				return pp, refused
			}
			if line, dup := seen[abs]; dup {
				return pp, refuse(nil, "invalid patch: line %d: %s is already changed at line %d; change each file in one section", fp.Line, abs, line)
			}
			seen[abs] = fp.Line
			pair[j] = abs
			pp.all = append(pp.all, abs)
		}
		pp.of = append(pp.of, pair)
	}
	return pp, nil
}

// patchPlan is everything a patch will do, computed before anything is
// written.
type patchPlan struct {
	changes  []files.Change
	versions map[string]string
	partial  map[string]bool // written files whose source the session saw only in part
	files    []map[string]any
	diffs    []string
	forget   []string
}

// planFile checks one section against the disk and the gates and adds its
// changes; the caller holds every path's lock.
func (e fileEnv) planFile(ctx context.Context, plan *patchPlan, fp textedit.FilePatch, paths [2]string) error {
	abs, dest := paths[0], paths[1]
	switch fp.Op {
	case textedit.OpAdd:
		return e.planAdd(plan, abs, textedit.AddedFile(fp.Add))
	case textedit.OpDelete:
		return e.planDelete(ctx, plan, abs)
	}
	cur, refused := e.load(ctx, abs)
	switch {
	case refused != nil:
		return refused
	case !cur.exists:
		return refuse(nil, "cannot update %s: it does not exist; create it with \"*** Add File: %s\"", abs, fp.Path)
	}
	if refused := e.gate(abs, cur, "", false); refused != nil {
		return refused
	}
	updated, err := textedit.ApplyHunks(ctx, cur.content, fp.Hunks)
	if ctx.Err() != nil {
		return patchCancelled()
	}
	if err != nil {
		return refuse(map[string]any{"path": abs}, "%s: %v", abs, err)
	}
	if dest == "" {
		return e.planUpdate(plan, abs, cur, updated)
	}
	return e.planMove(plan, abs, dest, cur, updated)
}

// patchCancelled is the result of a patch whose call was cancelled before
// anything was written.
func patchCancelled() error {
	return refuse(nil, "the call was cancelled; the patch was not applied and no file was changed")
}
