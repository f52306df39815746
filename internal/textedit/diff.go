package textedit

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// contextLines is the unified diff's context, as in `diff -u`.
const contextLines = 3

// Diff renders replacements of old as a unified diff without recomputing
// them: edit_file knows exactly what changed. Only the window of lines
// around the changes is handed to the diff library, and the hunk headers
// are shifted back to file line numbers, so a one-line edit of a 10 MiB
// file costs a window, not the file.
func Diff(oldName, newName, old string, reps []Replacement) string {
	if len(reps) == 0 {
		return ""
	}
	edits := make([]udiff.Edit, len(reps))
	for i, r := range reps {
		edits[i] = udiff.Edit{Start: r.Start, End: r.End, New: r.New}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	lo, hi := edits[0].Start, 0
	for _, e := range edits {
		hi = max(hi, e.End)
	}
	from := linesBack(old, lo, contextLines+1)
	to := linesForward(old, hi, contextLines+1)
	for i := range edits {
		edits[i].Start -= from
		edits[i].End -= from
	}
	out, err := udiff.ToUnified(oldName, newName, old[from:to], edits, contextLines)
	if err != nil { // cannot happen: the replacements come from Edits, sorted, disjoint, in range
		return DiffStrings(oldName, newName, old, Apply(old, reps))
	}
	return shiftHunks(out, strings.Count(old[:from], "\n"))
}

// DiffStrings is the unified diff of two texts (apply_patch, where whole
// files appear and vanish).
func DiffStrings(oldName, newName, old, new string) string {
	return udiff.Unified(oldName, newName, old, new)
}

// linesBack is the start of the line n lines above the one holding at.
func linesBack(s string, at, n int) int {
	i := strings.LastIndexByte(s[:at], '\n') + 1
	for ; n > 0 && i > 0; n-- {
		i = strings.LastIndexByte(s[:i-1], '\n') + 1
	}
	return i
}

// linesForward is the end (after its newline) of the n-th line from the
// one holding at.
func linesForward(s string, at, n int) int {
	i := at
	if i > 0 && s[i-1] == '\n' {
		n-- // at starts a line: the line before it is already whole
	}
	for ; n >= 0 && i < len(s); n-- {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return len(s)
		}
		i += j + 1
	}
	return i
}

var hunkHeader = regexp.MustCompile(`(?m)^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@$`)

// shiftHunks adds offset to the line numbers of every hunk header.
func shiftHunks(diff string, offset int) string {
	if offset == 0 {
		return diff
	}
	return hunkHeader.ReplaceAllStringFunc(diff, func(h string) string {
		m := hunkHeader.FindStringSubmatch(h)
		a, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[3])
		return "@@ -" + strconv.Itoa(a+offset) + m[2] + " +" + strconv.Itoa(c+offset) + m[4] + " @@"
	})
}
