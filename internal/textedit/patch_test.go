package textedit

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func lines(s ...string) string { return strings.Join(s, "\n") }

func TestParsePatch(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []FilePatch
	}{
		{"add, delete, update with move and hunks", lines(
			"*** Begin Patch",
			"*** Add File: docs/new.md",
			"+# Title",
			"+",
			"*** Delete File: old/unused.go",
			"*** Update File: src/app.go",
			"*** Move to: src/main.go",
			"@@ func main() {",
			" context",
			"-old",
			"+new",
			"",
			"@@",
			"-x",
			"+y",
			"*** End of File",
			"*** End Patch",
		), []FilePatch{
			{Op: OpAdd, Path: "docs/new.md", Add: []string{"# Title", ""}, Line: 2},
			{Op: OpDelete, Path: "old/unused.go", Line: 5},
			{Op: OpUpdate, Path: "src/app.go", MoveTo: "src/main.go", Line: 6, Hunks: []Hunk{
				{Anchor: "func main() {", Line: 8, Lines: []HunkLine{{' ', "context"}, {'-', "old"}, {'+', "new"}, {' ', ""}}},
				{Line: 13, Lines: []HunkLine{{'-', "x"}, {'+', "y"}}, EOF: true},
			}},
		}},
		{"first hunk without @@, CRLF, heredoc and blank lines around", "\n<<'EOF'\r\n*** Begin Patch\r\n*** Update File: a.txt\r\n-a\r\n+b\r\n*** End Patch\r\nEOF\n\n", []FilePatch{
			{Op: OpUpdate, Path: "a.txt", Line: 4, Hunks: []Hunk{{Line: 5, Lines: []HunkLine{{'-', "a"}, {'+', "b"}}}}},
		}},
		{"pure rename", lines("*** Begin Patch", "*** Update File: a", "*** Move to: b", "*** End Patch"), []FilePatch{
			{Op: OpUpdate, Path: "a", MoveTo: "b", Line: 2},
		}},
		{"empty added file", lines("*** Begin Patch", "*** Add File: empty", "*** End Patch"), []FilePatch{
			{Op: OpAdd, Path: "empty", Line: 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePatch(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("patch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParsePatchErrors(t *testing.T) {
	tests := []struct {
		name, patch string
		line        int
		msg         string
	}{
		{"empty", "  \n\n", 0, "the patch is empty"},
		{"no begin", lines("*** Update File: a", "-a", "*** End Patch"), 1, `expected "*** Begin Patch"`},
		{"no end", lines("*** Begin Patch", "*** Delete File: a"), 2, `expected "*** End Patch" as the last line`},
		{"only markers", lines("*** Begin Patch", "*** End Patch"), 0, "the patch changes no file"},
		{"unknown header", lines("*** Begin Patch", "*** Rename File: a", "*** End Patch"), 2, `expected "*** Add File: PATH"`},
		{"missing path", lines("*** Begin Patch", "*** Delete File: ", "*** End Patch"), 2, "file path is missing"},
		{"add line without +", lines("*** Begin Patch", "*** Add File: a", "+ok", "oops", "*** End Patch"), 4, `starts with "+", got "oops"`},
		{"update without hunks", lines("*** Begin Patch", "*** Update File: a", "*** End Patch"), 2, "has no hunks"},
		{"bad hunk line", lines("*** Begin Patch", "*** Update File: a", "@@", "-a", "?b", "*** End Patch"), 5, `expected a hunk line starting with ' ', '-', '+' or "@@", got "?b"`},
		{"hunk with only context", lines("*** Begin Patch", "*** Update File: a", "@@", " a", "*** End Patch"), 3, "has no '-' or '+' line"},
		{"line after End of File", lines("*** Begin Patch", "*** Update File: a", "-a", "*** End of File", "+b", "*** End Patch"), 5, "expected a hunk line"},
		{"empty move target", lines("*** Begin Patch", "*** Update File: a", "*** Move to: ", "*** End Patch"), 3, "destination path is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePatch(tt.patch)
			var pe *PatchError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v", err)
			}
			if pe.Line != tt.line || !strings.Contains(pe.Error(), tt.msg) {
				t.Errorf("err = %q (line %d), want line %d and %q", pe.Error(), pe.Line, tt.line, tt.msg)
			}
		})
	}
}

func hunk(anchor string, eof bool, hl ...string) Hunk {
	h := Hunk{Anchor: anchor, EOF: eof, Line: 3}
	for _, l := range hl {
		h.Lines = append(h.Lines, HunkLine{Kind: l[0], Text: l[1:]})
	}
	return h
}

func TestApplyHunks(t *testing.T) {
	tests := []struct {
		name, content string
		hunks         []Hunk
		want          string
	}{
		{"replace with context", "a\nb\nc\n", []Hunk{hunk("", false, " a", "-b", "+B", " c")}, "a\nB\nc\n"},
		{"two hunks in order", "1\n2\n3\n4\n5\n", []Hunk{hunk("", false, "-2", "+two"), hunk("", false, "-4", "+four")}, "1\ntwo\n3\nfour\n5\n"},
		{"anchor picks the second of two equal blocks", "f() {\n x\n}\ng() {\n x\n}\n", []Hunk{hunk("g() {", false, "- x", "+ y")}, "f() {\n x\n}\ng() {\n y\n}\n"},
		{"end of file anchor", "x\nend\nx\nend\n", []Hunk{hunk("", true, " x", "-end", "+END")}, "x\nend\nx\nEND\n"},
		{"anchor repeated as the first context line", "x\nfunc f() {\n\treturn\n}\n", []Hunk{hunk("func f() {", false, " func f() {", "-\treturn", "+\treturn 1")}, "x\nfunc f() {\n\treturn 1\n}\n"},
		{"pure addition at the end", "a\n", []Hunk{hunk("", false, "+b")}, "a\nb\n"},
		{"pure addition after the anchor", "a\nb\n", []Hunk{hunk("a", false, "+a2")}, "a\na2\nb\n"},
		{"trailing whitespace ignored", "a  \nb\n", []Hunk{hunk("", false, " a", "-b", "+c")}, "a  \nc\n"},
		{"surrounding whitespace ignored; context keeps the file's bytes", "\tif x {\n\t\treturn\n", []Hunk{hunk("", false, " if x {", "-  return", "+\t\treturn nil")}, "\tif x {\n\t\treturn nil\n"},
		{"CRLF kept, added lines CRLF", "a\r\nb\r\n", []Hunk{hunk("", false, " a", "+mid", " b")}, "a\r\nmid\r\nb\r\n"},
		{"BOM kept", "\ufeffa\nb\n", []Hunk{hunk("", false, "-a", "+z")}, "\ufeffz\nb\n"},
		{"no final newline stays so", "a\nb", []Hunk{hunk("", false, " b", "+c")}, "a\nb\nc"},
		{"replacing the last line without newline", "a\nb", []Hunk{hunk("", true, "-b", "+c")}, "a\nc"},
		{"empty file", "", []Hunk{hunk("", false, "+first")}, "first\n"},
		{"delete every line", "a\nb\n", []Hunk{hunk("", false, "-a", "-b")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyHunks(ctx, tt.content, tt.hunks)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("result = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestApplyHunksErrors(t *testing.T) {
	tests := []struct {
		name, content string
		hunks         []Hunk
		msg           string
	}{
		{"not found", "a\nb\n", []Hunk{hunk("", false, "-zz", "+y")}, `hunk 1 (patch line 3, "-zz"): its context and removed lines do not match the file after line 0`},
		{"ambiguous", "x\ny\nx\ny\n", []Hunk{hunk("", false, " x", "-y", "+z")}, "matches 2 places (lines 1, 3)"},
		{"anchor missing", "a\n", []Hunk{hunk("func nope()", false, "-a", "+b")}, `the @@ line "func nope()" was not found`},
		{"hunks out of order", "1\n2\n3\n", []Hunk{hunk("", false, "-3", "+c"), hunk("", false, "-1", "+a")}, "hunk 2"},
		{"end of file not at the end", "a\nb\n", []Hunk{hunk("", true, "-a", "+x")}, "at the end of the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ApplyHunks(ctx, tt.content, tt.hunks)
			var he *HunkError
			if !errors.As(err, &he) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %q", err, tt.msg)
			}
		})
	}
}

func TestAddedFile(t *testing.T) {
	if got := AddedFile([]string{"a", "", "b"}); got != "a\n\nb\n" {
		t.Errorf("AddedFile = %q", got)
	}
	if got := AddedFile(nil); got != "" {
		t.Errorf("AddedFile(nil) = %q", got)
	}
}

// FuzzParsePatch: the patch is model output; no input may panic the parser
// or the applier, errors name a line inside the patch, and every parsed
// section has a path.
func FuzzParsePatch(f *testing.F) {
	f.Add(lines("*** Begin Patch", "*** Update File: a", "@@ x", " x", "-y", "+z", "*** End of File", "*** End Patch"), "x\ny\n")
	f.Add(lines("*** Begin Patch", "*** Add File: b", "+1", "*** Delete File: c", "*** End Patch"), "")
	f.Add("<<EOF\n*** Begin Patch\n*** Update File: a\n*** Move to: b\nEOF", "a\r\n")
	f.Fuzz(func(t *testing.T, patch, content string) {
		fps, err := ParsePatch(patch)
		if err != nil {
			var pe *PatchError
			if !errors.As(err, &pe) || pe.Line < 0 || pe.Line > strings.Count(patch, "\n")+1 {
				t.Fatalf("error %v names no line of the patch", err)
			}
			return
		}
		for _, fp := range fps {
			if fp.Path == "" {
				t.Fatalf("section without a path: %+v", fp)
			}
			if fp.Op == OpUpdate {
				ApplyHunks(ctx, content, fp.Hunks)
			}
		}
	})
}
