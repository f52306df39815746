package textedit

import (
	"context"
	"fmt"
	"strings"
)

// HunkError refuses a hunk that does not apply; the whole patch fails.
type HunkError struct {
	Hunk   int    // 0-based index in the file's hunks
	Line   int    // the hunk's first line in the patch
	First  string // the hunk's first line, as written
	Reason string
}

func (e *HunkError) Error() string {
	return fmt.Sprintf("hunk %d (patch line %d, %q): %s", e.Hunk+1, e.Line, e.First, e.Reason)
}

// fileLine is one line of a file and its own ending ("" for a last line
// without one).
type fileLine struct{ text, eol string }

// hunkLevels compare a patch line with a file line, in order: exactly,
// ignoring trailing whitespace, ignoring surrounding whitespace.
var hunkLevels = []func(string) string{
	func(s string) string { return s },
	func(s string) string { return strings.TrimRight(s, " \t\f\v") },
	strings.TrimSpace,
}

// ApplyHunks applies an update's hunks, in order, to content. Lines the
// hunks do not replace keep their bytes (and endings); added lines get the
// file's dominant ending; the file ends with a newline exactly when it did.
// A cancelled ctx stops it with ctx's error.
func ApplyHunks(ctx context.Context, content string, hunks []Hunk) (string, error) {
	d := NewDoc(content)
	lines := splitLines(content[d.bom:])
	finalEOL := len(lines) == 0 || lines[len(lines)-1].eol != ""
	var out []fileLine
	cursor := 0
	for i, h := range hunks {
		pos, n, err := locate(ctx, lines, cursor, h)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if err != nil {
			return "", &HunkError{Hunk: i, Line: h.Line, First: firstLine(h), Reason: err.Error()}
		}
		out = append(out, lines[cursor:pos]...)
		k := pos
		for _, hl := range h.Lines {
			switch hl.Kind {
			case ' ':
				out = append(out, lines[k])
				k++
			case '-':
				k++
			case '+':
				out = append(out, fileLine{hl.Text, d.eol})
			}
		}
		cursor = pos + n
	}
	out = append(out, lines[cursor:]...)
	return content[:d.bom] + joinLines(out, d.eol, finalEOL), nil
}

// AddedFile is the content of an "*** Add File:" section: every line ends
// with "\n".
func AddedFile(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func splitLines(body string) []fileLine {
	out := make([]fileLine, 0, strings.Count(body, "\n")+1)
	for body != "" {
		i := strings.IndexByte(body, '\n')
		if i < 0 {
			out = append(out, fileLine{text: body})
			break
		}
		text, eol := body[:i], "\n"
		if strings.HasSuffix(text, "\r") {
			text, eol = text[:len(text)-1], "\r\n"
		}
		out = append(out, fileLine{text, eol})
		body = body[i+1:]
	}
	return out
}

func joinLines(lines []fileLine, eol string, finalEOL bool) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l.text)
		switch {
		case i < len(lines)-1 && l.eol == "":
			b.WriteString(eol) // a line that was last and no longer is
		case i == len(lines)-1 && !finalEOL:
		case i == len(lines)-1 && l.eol == "":
			b.WriteString(eol)
		default:
			b.WriteString(l.eol)
		}
	}
	return b.String()
}

// locate finds where hunk h applies at or after line cursor and returns the
// position and the number of file lines it replaces.
func locate(ctx context.Context, lines []fileLine, cursor int, h Hunk) (pos, n int, err error) {
	var old []string
	for _, hl := range h.Lines {
		if hl.Kind != '+' {
			old = append(old, hl.Text)
		}
	}
	start := cursor
	if h.Anchor != "" {
		a, ok := findAnchor(ctx, lines, cursor, h.Anchor)
		if !ok {
			return 0, 0, fmt.Errorf("the @@ line %q was not found in the file after line %d; quote a line of the file exactly", h.Anchor, cursor)
		}
		start = a + 1
	}
	switch {
	case len(old) == 0 && (h.Anchor == "" || h.EOF):
		return len(lines), 0, nil // pure addition: at the end of the file
	case len(old) == 0:
		return start, 0, nil // pure addition: right after the anchor
	}
	pos, n, err = findOld(ctx, lines, start, old, h)
	if err != nil && h.Anchor != "" && ctx.Err() == nil {
		// Models often repeat the anchor as the first context line.
		if p, m, err2 := findOld(ctx, lines, start-1, old, h); err2 == nil {
			return p, m, nil
		}
	}
	return pos, n, err
}

func findAnchor(ctx context.Context, lines []fileLine, from int, anchor string) (int, bool) {
	for _, norm := range hunkLevels {
		want := norm(anchor)
		for i := from; i < len(lines); i++ {
			if (i-from)%checkEvery == 0 && ctx.Err() != nil {
				return 0, false
			}
			if norm(lines[i].text) == want {
				return i, true
			}
		}
	}
	return 0, false
}

// findOld finds the hunk's context and removed lines at the first level
// that matches. Without an anchor more than one place is ambiguous; after an
// anchor the nearest place wins, which is what the anchor is for.
func findOld(ctx context.Context, lines []fileLine, start int, old []string, h Hunk) (int, int, error) {
	from := start
	if h.EOF {
		from = max(from, len(lines)-len(old))
	}
	for _, norm := range hunkLevels {
		found, err := placesOf(ctx, lines, from, old, norm, h.Anchor != "")
		switch {
		case err != nil:
			return 0, 0, err
		case found.count == 1:
			return found.first[0], len(old), nil
		case found.count > 1:
			return 0, 0, fmt.Errorf("the context matches %d places (lines %s); add an @@ line naming a line above the change, or more context", found.count, joinInts(plusOne(found.first)))
		}
	}
	where := "at the end of the file"
	if !h.EOF {
		where = fmt.Sprintf("after line %d", start)
	}
	return 0, 0, fmt.Errorf("its context and removed lines do not match the file %s; read the file and copy them exactly", where)
}

// places counts the lines a hunk could apply at and keeps the first few.
type places struct {
	first []int
	count int
}

// placesOf finds the lines from which old follows (each line compared
// after norm), at or after line from; only the first when first is set.
func placesOf(ctx context.Context, lines []fileLine, from int, old []string, norm func(string) string, first bool) (places, error) {
	want := make([]string, len(old))
	for i, o := range old {
		want[i] = norm(o)
	}
	var found places
	key := func(i int) string { return norm(lines[i].text) }
	err := newLinePattern(want).scan(ctx, max(from, 0), len(lines), key, func(p int) bool {
		if found.count++; len(found.first) < maxListedLines {
			found.first = append(found.first, p)
		}
		return !first
	})
	return found, err
}

func firstLine(h Hunk) string {
	if h.Anchor != "" {
		return "@@ " + h.Anchor
	}
	if len(h.Lines) == 0 {
		return ""
	}
	return string(h.Lines[0].Kind) + h.Lines[0].Text
}

func plusOne(xs []int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x + 1
	}
	return out
}
