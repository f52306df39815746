package textedit

import (
	"context"
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
// none. A cancelled ctx stops the matching with ctx's error.
func Edits(ctx context.Context, content string, edits []Edit) ([]Replacement, []Match, error) {
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
		f, err := d.find(ctx, i, e.OldText)
		if err != nil {
			return nil, nil, err
		}
		newText := normEOL(e.NewText)
		if f.lines {
			newText = reindent(newText, indentOf(normEOL(e.OldText)), indentOf(d.norm[f.start:]))
		}
		reps[i] = Replacement{Start: d.origOffset(f.start), End: d.origOffset(f.end), New: d.withEOL(newText)}
		matches[i] = Match{Index: i, Level: f.level, Line: d.lineOf(f.start)}
	}
	if err := checkOverlap(reps); err != nil {
		return nil, nil, err
	}
	return reps, matches, nil
}

// step is one way of finding oldText. The steps run in order and the first
// with any match decides (doc.go, "Match levels").
type step struct {
	level string
	// lines: whole lines compared by key, so the replacement is moved to
	// the file's indentation.
	lines bool
	find  func(d *Doc, ctx context.Context, old string) (hits, error)
}

var steps = []step{
	{LevelExact, false, (*Doc).exact},
	{LevelTrim, true, func(d *Doc, ctx context.Context, old string) (hits, error) { return d.lines(ctx, old, trimKey) }},
	{LevelUnicode, false, (*Doc).foldedExact},
	{LevelUnicode, true, (*Doc).foldedLines},
}

// found is where an edit's oldText matched, as a normalised range.
type found struct {
	start, end int
	level      string
	lines      bool
}

// find locates old in the normalised text at the first step that finds it.
func (d *Doc) find(ctx context.Context, index int, old string) (found, error) {
	old = normEOL(old)
	for _, s := range steps {
		h, err := s.find(d, ctx, old)
		switch {
		case err != nil:
			return found{}, err
		case h.count == 1:
			return found{start: h.first[0][0], end: h.first[0][1], level: s.level, lines: s.lines}, nil
		case h.count > 1:
			return found{}, d.ambiguous(index, s.level, h)
		}
	}
	return found{}, &EditError{Code: CodeNotFound, Index: index, msg: fmt.Sprintf(
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

// exact finds every occurrence of old, overlapping ones included.
func (d *Doc) exact(ctx context.Context, old string) (hits, error) {
	var h hits
	err := eachExact(ctx, d.norm, old, func(p int) { h.add(p, p+len(old)) })
	return h, err
}

// foldedExact finds old inside lines, like exact, with typographic
// characters folded on both sides. An occurrence that starts or ends inside
// a folded character's replacement does not count.
func (d *Doc) foldedExact(ctx context.Context, old string) (hits, error) {
	var h hits
	f, o := d.folded(), foldString(old)
	if len(f.segs) == 0 && o == old {
		return h, nil // nothing folds: exact has already looked
	}
	err := eachExact(ctx, f.text, o, func(p int) {
		start, ok1 := f.orig(p)
		end, ok2 := f.orig(p + len(o))
		if ok1 && ok2 {
			h.add(start, end)
		}
	})
	return h, err
}

// foldedLines is the trim level with typographic characters folded.
func (d *Doc) foldedLines(ctx context.Context, old string) (hits, error) {
	if len(d.folded().segs) == 0 && foldString(old) == old {
		return hits{}, nil // nothing folds: trim has already looked
	}
	return d.lines(ctx, old, foldKey)
}

// lines matches old as whole lines, each compared by key. The range covers
// the matched lines; their final newline only when old ends in one.
func (d *Doc) lines(ctx context.Context, old string, key func(string) string) (hits, error) {
	trailingNL := strings.HasSuffix(old, "\n")
	want := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	blank := true
	for i, w := range want {
		want[i] = key(w)
		blank = blank && want[i] == ""
	}
	var h hits
	if blank {
		return h, nil // blank lines match everywhere; only an exact match may place them
	}
	starts, err := d.lineStarts(ctx)
	if err != nil {
		return h, err
	}
	text := d.norm
	line := func(i int) string { return key(text[starts[i]:lineEnd(text, starts, i)]) }
	err = newLinePattern(want).scan(ctx, 0, len(starts), line, func(i int) bool {
		end := lineEnd(text, starts, i+len(want)-1)
		if trailingNL && end < len(text) {
			end++
		}
		h.add(starts[i], end)
		return true
	})
	return h, err
}

// lineStarts returns the offset of every line's first byte.
func lineStarts(ctx context.Context, text string) ([]int, error) {
	starts := make([]int, 1, strings.Count(text, "\n")+1)
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 || i+j+1 == len(text) {
			return starts, nil
		}
		i += j + 1
		starts = append(starts, i)
		if len(starts)%(16*checkEvery) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
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
