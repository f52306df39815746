package textedit

import (
	"fmt"
	"sort"
	"strings"
)

// Edit is one replacement edit_file asks for.
type Edit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// Match says where and how an edit's oldText was found.
type Match struct {
	Index int    `json:"index"` // the edit's position in the list (0-based)
	Level string `json:"level"`
	Line  int    `json:"line"` // 1-based line where the match starts
}

// Error codes of edit_file (data.code).
const (
	CodeNoEdits   = "no_edits"
	CodeEmptyOld  = "empty_old"
	CodeNotFound  = "not_found"
	CodeAmbiguous = "ambiguous"
	CodeOverlap   = "overlap"
)

// EditCodes lists the error codes.
var EditCodes = []string{CodeNoEdits, CodeEmptyOld, CodeNotFound, CodeAmbiguous, CodeOverlap}

// EditError refuses a list of edits; nothing is applied.
type EditError struct {
	Code  string
	Index int   // the failing edit (the later one for overlap)
	Other int   // overlap: the edit it overlaps
	Count int   // ambiguous: how many places match
	Lines []int // ambiguous: where (first few)
	Level string
	msg   string
}

func (e *EditError) Error() string { return e.msg }

// maxListedLines bounds the lines an ambiguous error lists.
const maxListedLines = 10

// Edits matches every edit against content (each against the original, not
// after the others) and returns the replacements and matches; all edits or
// none.
func Edits(content string, edits []Edit) ([]Replacement, []Match, error) {
	if len(edits) == 0 {
		return nil, nil, &EditError{Code: CodeNoEdits, msg: "no edits given: pass at least one {oldText, newText}"}
	}
	d := NewDoc(content)
	reps := make([]Replacement, len(edits))
	matches := make([]Match, len(edits))
	for i, e := range edits {
		if e.OldText == "" {
			return nil, nil, &EditError{Code: CodeEmptyOld, Index: i, msg: fmt.Sprintf(
				"edit %d: oldText is empty; quote the text to replace (to create or overwrite a whole file use write_file)", i)}
		}
		start, end, level, err := d.find(i, e.OldText)
		if err != nil {
			return nil, nil, err
		}
		newText := normEOL(e.NewText)
		if level != LevelExact {
			newText = reindent(newText, indentOf(normEOL(e.OldText)), indentOf(d.norm[start:]))
		}
		reps[i] = Replacement{Start: d.origOffset(start), End: d.origOffset(end), New: d.withEOL(newText)}
		matches[i] = Match{Index: i, Level: level, Line: d.lineOf(start)}
	}
	if err := checkOverlap(reps); err != nil {
		return nil, nil, err
	}
	return reps, matches, nil
}

// find locates old in the normalised text at the first level that finds
// it and returns the normalised range.
func (d *Doc) find(index int, old string) (start, end int, level string, err error) {
	old = normEOL(old)
	for _, level := range Levels {
		var found hits
		if level == LevelExact {
			found = findExact(d.norm, old)
		} else {
			found = findLines(d.norm, old, level)
		}
		switch found.count {
		case 0:
			continue
		case 1:
			return found.first[0][0], found.first[0][1], level, nil
		default:
			return 0, 0, "", d.ambiguous(index, level, found)
		}
	}
	return 0, 0, "", &EditError{Code: CodeNotFound, Index: index, msg: fmt.Sprintf(
		"edit %d: oldText was not found (tried exact, trim and unicode matching); read the file again and copy oldText from it exactly", index)}
}

func (d *Doc) ambiguous(index int, level string, found hits) error {
	e := &EditError{Code: CodeAmbiguous, Index: index, Count: found.count, Level: level}
	for _, f := range found.first {
		e.Lines = append(e.Lines, d.lineOf(f[0]))
	}
	more := ""
	if found.count > len(found.first) {
		more = ", …"
	}
	e.msg = fmt.Sprintf("edit %d: oldText matches %d places (%s match, lines %s%s); include more surrounding lines so it matches exactly one",
		index, found.count, level, joinInts(e.Lines), more)
	return e
}

// hits counts matches and keeps the first few ranges (a one-letter oldText
// in a large file must not allocate a range per occurrence).
type hits struct {
	first [][2]int
	count int
}

func (h *hits) add(start, end int) {
	if h.count++; len(h.first) < maxListedLines {
		h.first = append(h.first, [2]int{start, end})
	}
}

// findExact finds every occurrence of old, overlapping ones included.
func findExact(text, old string) hits {
	var h hits
	for at := 0; ; {
		i := strings.Index(text[at:], old)
		if i < 0 {
			return h
		}
		h.add(at+i, at+i+len(old))
		at += i + 1
	}
}

// findLines matches old as whole lines, each compared by lineKey. The range
// covers the matched lines; their final newline only when old ends in one.
func findLines(text, old, level string) hits {
	trailingNL := strings.HasSuffix(old, "\n")
	want := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	blank := true
	for i, w := range want {
		want[i] = lineKey(level, w)
		blank = blank && want[i] == ""
	}
	var h hits
	if blank {
		return h // blank lines match everywhere; only an exact match may place them
	}
	starts := lineStarts(text)
	for i := 0; i+len(want) <= len(starts); i++ {
		if !linesMatch(text, starts, i, want, level) {
			continue
		}
		end := lineEnd(text, starts, i+len(want)-1)
		if trailingNL && end < len(text) {
			end++
		}
		h.add(starts[i], end)
	}
	return h
}

func linesMatch(text string, starts []int, from int, want []string, level string) bool {
	for j, w := range want {
		if lineKey(level, text[starts[from+j]:lineEnd(text, starts, from+j)]) != w {
			return false
		}
	}
	return true
}

// lineStarts returns the offset of every line's first byte.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineEnd is the offset of line i's '\n' (or the end of text).
func lineEnd(text string, starts []int, i int) int {
	if i+1 < len(starts) {
		return starts[i+1] - 1
	}
	if strings.HasSuffix(text, "\n") {
		return len(text) - 1
	}
	return len(text)
}

// checkOverlap refuses replacements whose ranges overlap (touching is fine).
func checkOverlap(reps []Replacement) error {
	order := make([]int, len(reps))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return reps[order[a]].Start < reps[order[b]].Start })
	for k := 1; k < len(order); k++ {
		prev, cur := order[k-1], order[k]
		if reps[cur].Start < reps[prev].End {
			a, b := min(prev, cur), max(prev, cur)
			return &EditError{Code: CodeOverlap, Index: b, Other: a, msg: fmt.Sprintf(
				"edits %d and %d overlap in the file; merge them into one edit, or make each oldText cover separate text", a, b)}
		}
	}
	return nil
}

// reindent moves newText from the indentation the model gave oldText to the
// one the file has: a whole-line match that ignored whitespace must not
// strip or change the indentation of the lines it replaces. Lines that do
// not start with from are left alone.
func reindent(newText, from, to string) string {
	if from == to {
		return newText
	}
	lines := strings.Split(newText, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" && strings.HasPrefix(l, from) {
			lines[i] = to + l[len(from):]
		}
	}
	return strings.Join(lines, "\n")
}

// indentOf is the leading whitespace of s's first line.
func indentOf(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
