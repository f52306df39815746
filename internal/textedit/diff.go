package textedit

import (
	"sort"

	udiff "github.com/aymanbagabas/go-udiff"
)

// contextLines is the unified diff's context, as in `diff -u`.
const contextLines = 3

// Diff renders replacements of old as a unified diff without recomputing
// them: edit_file knows exactly what changed, so a 10 MiB file costs one
// pass, not a line-by-line comparison.
func Diff(oldName, newName, old string, reps []Replacement) string {
	edits := make([]udiff.Edit, len(reps))
	for i, r := range reps {
		edits[i] = udiff.Edit{Start: r.Start, End: r.End, New: r.New}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	out, err := udiff.ToUnified(oldName, newName, old, edits, contextLines)
	if err != nil { // the replacements come from Edits: sorted, disjoint, in range
		return DiffStrings(oldName, newName, old, Apply(old, reps))
	}
	return out
}

// DiffStrings is the unified diff of two texts (apply_patch, where whole
// files appear and vanish).
func DiffStrings(oldName, newName, old, new string) string {
	return udiff.Unified(oldName, newName, old, new)
}
