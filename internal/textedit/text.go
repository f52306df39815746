package textedit

import (
	"context"
	"sort"
	"strings"
)

const bom = "\ufeff"

// Doc is a file's text with the normalised view matching runs on.
type Doc struct {
	orig string // the file's exact content
	bom  int    // length of a leading byte-order mark (0 or 3)
	norm string // orig after the BOM, CRLF folded to LF
	crAt []int  // offsets in norm of each '\n' that had a '\r' before it
	eol  string // the dominant line ending: "\r\n" or "\n"

	// Computed on first use, then shared by every edit of a list.
	starts []int   // offset in norm of each line's first byte
	fold   *folded // norm with typographic characters folded
}

// NewDoc prepares content for matching.
func NewDoc(content string) *Doc {
	d := &Doc{orig: content, eol: "\n"}
	body := content
	if strings.HasPrefix(body, bom) {
		d.bom = len(bom)
		body = body[len(bom):]
	}
	if !strings.Contains(body, "\r\n") {
		d.norm = body
		return d
	}
	var b strings.Builder
	b.Grow(len(body))
	for {
		i := strings.Index(body, "\r\n")
		if i < 0 {
			b.WriteString(body)
			break
		}
		b.WriteString(body[:i])
		d.crAt = append(d.crAt, b.Len())
		b.WriteByte('\n')
		body = body[i+2:]
	}
	d.norm = b.String()
	if lf := strings.Count(d.norm, "\n"); len(d.crAt) > lf-len(d.crAt) {
		d.eol = "\r\n"
	}
	return d
}

// lineStarts is the offset in norm of each line's first byte.
func (d *Doc) lineStarts(ctx context.Context) ([]int, error) {
	if d.starts == nil {
		starts, err := lineStarts(ctx, d.norm)
		if err != nil {
			return nil, err
		}
		d.starts = starts
	}
	return d.starts, nil
}

// folded is norm with typographic characters folded.
func (d *Doc) folded() folded {
	if d.fold == nil {
		f := fold(d.norm)
		d.fold = &f
	}
	return *d.fold
}

// EOL is the file's dominant line ending.
func (d *Doc) EOL() string { return d.eol }

// orig maps an offset in the normalised view to one in the original: each
// folded "\r\n" before it adds a byte, and so does the BOM. An offset just
// at a folded '\n' maps to its '\r', so a range ending at a line's end
// leaves the whole "\r\n" outside and a range covering the '\n' covers both.
func (d *Doc) origOffset(n int) int {
	return d.bom + n + sort.SearchInts(d.crAt, n)
}

// lineOf is the 1-based line of a normalised offset.
func (d *Doc) lineOf(n int) int { return strings.Count(d.norm[:n], "\n") + 1 }

// withEOL converts model text to the file's line ending.
func (d *Doc) withEOL(s string) string {
	s = normEOL(s)
	if d.eol == "\r\n" {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

// normEOL folds CRLF to LF.
func normEOL(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// Replacement replaces orig[Start:End] with New (byte offsets in the
// original content).
type Replacement struct {
	Start, End int
	New        string
}

// Apply returns content with non-overlapping replacements applied.
func Apply(content string, reps []Replacement) string {
	sorted := append([]Replacement(nil), reps...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var b strings.Builder
	b.Grow(len(content))
	at := 0
	for _, r := range sorted {
		b.WriteString(content[at:r.Start])
		b.WriteString(r.New)
		at = r.End
	}
	b.WriteString(content[at:])
	return b.String()
}
