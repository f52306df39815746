package textedit

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Patch operations (data.files[].op of apply_patch).
const (
	OpAdd    = "add"
	OpDelete = "delete"
	OpUpdate = "update"
	OpMove   = "move" // an update with "*** Move to:"
)

// FilePatch is one file section of a patch.
type FilePatch struct {
	Op     string // OpAdd, OpDelete or OpUpdate (a move is an update with MoveTo)
	Path   string // as written, relative to the workspace or absolute
	MoveTo string
	Add    []string // OpAdd: the file's lines, without the "+"
	Hunks  []Hunk
	Line   int // the section's header line in the patch
}

// Hunk is one "@@" change of an update.
type Hunk struct {
	Anchor string     // the text after "@@ ", a line to find first; "" for none
	Lines  []HunkLine // context (' '), removed ('-') and added ('+') lines
	EOF    bool       // "*** End of File": the hunk must match at the end
	Line   int        // the hunk's first line in the patch
}

// HunkLine is one line of a hunk.
type HunkLine struct {
	Kind byte // ' ', '-' or '+'
	Text string
}

// PatchError refuses a malformed patch, naming the line.
type PatchError struct {
	Line int
	Msg  string
}

func (e *PatchError) Error() string {
	if e.Line == 0 {
		return "invalid patch: " + e.Msg
	}
	return fmt.Sprintf("invalid patch: line %d: %s", e.Line, e.Msg)
}

// Patch markers.
const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File: "
	deleteFile = "*** Delete File: "
	updateFile = "*** Update File: "
	moveTo     = "*** Move to: "
	endOfFile  = "*** End of File"
)

// heredoc matches the shell wrapper models sometimes keep (<<'EOF' … EOF);
// compiled on first use, not at every start-up.
var heredoc = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<<-?\s*['"]?([A-Za-z_]+)['"]?$`) })

// ParsePatch parses the Codex patch format (SPEC §4.1). Line endings may be
// CRLF; blank lines around the patch and a heredoc wrapper are tolerated.
func ParsePatch(text string) ([]FilePatch, error) {
	lines, offset := patchLines(text)
	if len(lines) == 0 {
		return nil, &PatchError{Msg: "the patch is empty; start it with " + q(beginPatch) + " and end it with " + q(endPatch)}
	}
	p := &patchParser{lines: lines, offset: offset}
	return p.parse()
}

// patchLines splits the patch into lines, dropping surrounding blank lines
// and a heredoc wrapper; offset is the patch line number of lines[0], less
// one.
func patchLines(text string) ([]string, int) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	start, end := 0, len(lines)
	for start < end && strings.TrimSpace(lines[start]) == "" {
		start++
	}
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	if end-start >= 2 {
		if m := heredoc().FindStringSubmatch(strings.TrimSpace(lines[start])); m != nil && strings.TrimSpace(lines[end-1]) == m[1] {
			start, end = start+1, end-1
		}
	}
	return lines[start:end], start
}

type patchParser struct {
	lines  []string
	offset int
	i      int
}

func (p *patchParser) lineNo() int { return p.offset + p.i + 1 }

func (p *patchParser) errf(format string, args ...any) error {
	return &PatchError{Line: p.lineNo(), Msg: fmt.Sprintf(format, args...)}
}

func (p *patchParser) parse() ([]FilePatch, error) {
	if strings.TrimSpace(p.lines[0]) != beginPatch {
		return nil, p.errf("expected %s, got %q", q(beginPatch), p.lines[0])
	}
	last := len(p.lines) - 1
	if last == 0 || strings.TrimSpace(p.lines[last]) != endPatch {
		p.i = last
		return nil, p.errf("expected %s as the last line, got %q", q(endPatch), p.lines[last])
	}
	p.lines = p.lines[:last]
	p.i = 1
	var out []FilePatch
	for p.i < len(p.lines) {
		fp, err := p.section()
		if err != nil {
			return nil, err
		}
		out = append(out, fp)
	}
	if len(out) == 0 {
		return nil, &PatchError{Msg: "the patch changes no file; add an " + q(addFile+"PATH") + ", " + q(deleteFile+"PATH") + " or " + q(updateFile+"PATH") + " section"}
	}
	return out, nil
}

// section parses one file section starting at its header.
func (p *patchParser) section() (FilePatch, error) {
	line := p.lines[p.i]
	fp := FilePatch{Line: p.lineNo()}
	switch {
	case strings.HasPrefix(line, addFile):
		fp.Op, fp.Path = OpAdd, strings.TrimSpace(line[len(addFile):])
	case strings.HasPrefix(line, deleteFile):
		fp.Op, fp.Path = OpDelete, strings.TrimSpace(line[len(deleteFile):])
	case strings.HasPrefix(line, updateFile):
		fp.Op, fp.Path = OpUpdate, strings.TrimSpace(line[len(updateFile):])
	default:
		return fp, p.errf("expected %s, %s, %s or %s, got %q", q(addFile+"PATH"), q(deleteFile+"PATH"), q(updateFile+"PATH"), q(endPatch), line)
	}
	if fp.Path == "" {
		return fp, p.errf("the file path is missing after %q", strings.TrimSpace(line))
	}
	p.i++
	switch fp.Op {
	case OpAdd:
		return fp, p.addBody(&fp)
	case OpUpdate:
		return fp, p.updateBody(&fp)
	}
	return fp, nil
}

// atHeader reports whether the current line starts another section.
func (p *patchParser) atHeader() bool {
	l := p.lines[p.i]
	return strings.HasPrefix(l, addFile) || strings.HasPrefix(l, deleteFile) || strings.HasPrefix(l, updateFile)
}

func (p *patchParser) addBody(fp *FilePatch) error {
	for ; p.i < len(p.lines) && !p.atHeader(); p.i++ {
		l := p.lines[p.i]
		if !strings.HasPrefix(l, "+") {
			return p.errf("every line of an added file starts with %q, got %q", "+", l)
		}
		fp.Add = append(fp.Add, l[1:])
	}
	return nil
}

func (p *patchParser) updateBody(fp *FilePatch) error {
	if p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], moveTo) {
		if fp.MoveTo = strings.TrimSpace(p.lines[p.i][len(moveTo):]); fp.MoveTo == "" {
			return p.errf("the destination path is missing after %q", strings.TrimSpace(moveTo))
		}
		p.i++
	}
	for p.i < len(p.lines) && !p.atHeader() {
		h, err := p.hunk(len(fp.Hunks) == 0)
		if err != nil {
			return err
		}
		fp.Hunks = append(fp.Hunks, h)
	}
	if len(fp.Hunks) == 0 && fp.MoveTo == "" {
		return &PatchError{Line: fp.Line, Msg: fmt.Sprintf("%s has no hunks; add \"@@\" hunks with ' ', '-' and '+' lines, or a %s line to rename it", q(updateFile+fp.Path), q(moveTo+"PATH"))}
	}
	return nil
}

// hunk parses one hunk; the first hunk of a file may omit its "@@" line.
func (p *patchParser) hunk(first bool) (Hunk, error) {
	h := Hunk{Line: p.lineNo()}
	l := p.lines[p.i]
	switch {
	case l == "@@" || strings.HasPrefix(l, "@@ "):
		h.Anchor = strings.TrimSpace(strings.TrimPrefix(l, "@@"))
		p.i++
	case !first:
		return h, p.errf("expected a hunk line starting with ' ', '-', '+' or \"@@\", got %q", l)
	}
	for ; p.i < len(p.lines) && !p.atHeader(); p.i++ {
		l := p.lines[p.i]
		if l == "@@" || strings.HasPrefix(l, "@@ ") {
			break
		}
		if strings.TrimSpace(l) == endOfFile {
			h.EOF = true
			p.i++
			break
		}
		if l == "" { // an empty context line whose leading space was lost
			h.Lines = append(h.Lines, HunkLine{Kind: ' '})
			continue
		}
		switch l[0] {
		case ' ', '-', '+':
			h.Lines = append(h.Lines, HunkLine{Kind: l[0], Text: l[1:]})
		default:
			return h, p.errf("expected a hunk line starting with ' ', '-', '+' or \"@@\", got %q", l)
		}
	}
	return h, checkHunk(h)
}

// checkHunk refuses a hunk that changes nothing.
func checkHunk(h Hunk) error {
	for _, l := range h.Lines {
		if l.Kind != ' ' {
			return nil
		}
	}
	return &PatchError{Line: h.Line, Msg: "the hunk has no '-' or '+' line; every hunk must change something"}
}

func q(s string) string { return `"` + s + `"` }
