package textedit

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEdits(t *testing.T) {
	tests := []struct {
		name    string
		content string
		edits   []Edit
		want    string
		matches []Match
	}{
		{"exact", "a\nb\nc\n", []Edit{{"b\n", "B\n"}}, "a\nB\nc\n", []Match{{0, "exact", 2}}},
		{"exact within a line", "let x = 1;\n", []Edit{{"x = 1", "x = 2"}}, "let x = 2;\n", []Match{{0, "exact", 1}}},
		{"several edits against the original", "one\ntwo\nthree\n", []Edit{{"three", "3"}, {"one", "1"}}, "1\ntwo\n3\n", []Match{{0, "exact", 3}, {1, "exact", 1}}},
		{"touching edits", "abcd", []Edit{{"ab", "X"}, {"cd", "Y"}}, "XY", []Match{{0, "exact", 1}, {1, "exact", 1}}},
		{"trim: indentation differs", "func f() {\n\t\treturn 1\n}\n", []Edit{{"  return 1\n", "\t\treturn 2\n"}}, "func f() {\n\t\treturn 2\n}\n", []Match{{0, "trim", 2}}},
		{"trim: trailing spaces in the file", "a  \nb\t\nc\n", []Edit{{"a\nb", "x"}}, "x\nc\n", []Match{{0, "trim", 1}}},
		{"unicode: curly quotes and dash in the file", "say(“hi” – ok…)\n", []Edit{{`say("hi" - ok...)`, `say("bye")`}}, "say(\"bye\")\n", []Match{{0, "unicode", 1}}},
		{"trim: indentation restored", "if x {\n\t\tf(a)  \n}\n", []Edit{{"f(a)\n", "f(a)\ng(a)\n"}}, "if x {\n\t\tf(a)\n\t\tg(a)\n}\n", []Match{{0, "trim", 2}}},
		{"trim: indentation changed relative to oldText", "\tif x {\n\t\ty()\n\t}\n", []Edit{{"if x {\n  y()\n}", "if z {\n  y()\n  w()\n}"}}, "\tif z {\n\t  y()\n\t  w()\n\t}\n", []Match{{0, "trim", 1}}},
		{"unicode: NBSP in oldText", "x = 1\n", []Edit{{"x\u00a0= 1", "x = 2"}}, "x = 2\n", []Match{{0, "unicode", 1}}},
		{"CRLF file, LF oldText: endings kept", "a\r\nb\r\nc\r\n", []Edit{{"a\nb\n", "A\nB\nB2\n"}}, "A\r\nB\r\nB2\r\nc\r\n", []Match{{0, "exact", 1}}},
		{"CRLF file, CRLF oldText", "a\r\nb\r\n", []Edit{{"b\r\n", "c\r\n"}}, "a\r\nc\r\n", []Match{{0, "exact", 2}}},
		{"CRLF: match ending before the newline", "a\r\nb\r\n", []Edit{{"a", "x"}}, "x\r\nb\r\n", []Match{{0, "exact", 1}}},
		{"mixed endings: untouched lines keep theirs", "a\r\nb\nc\r\nd\r\n", []Edit{{"b\n", "B\n"}}, "a\r\nB\r\nc\r\nd\r\n", []Match{{0, "exact", 2}}},
		{"BOM kept", "\ufeffa\nb\n", []Edit{{"a", "x"}}, "\ufeffx\nb\n", []Match{{0, "exact", 1}}},
		{"BOM and CRLF at trim level", "\ufeff  a\r\nb\r\n", []Edit{{"a  \n", "z\n"}}, "\ufeff  z\r\nb\r\n", []Match{{0, "trim", 1}}},
		{"no trailing newline", "a\nb", []Edit{{"b", "c"}}, "a\nc", []Match{{0, "exact", 2}}},
		{"delete text", "keep\ndrop\n", []Edit{{"drop\n", ""}}, "keep\n", []Match{{0, "exact", 2}}},
		{"unicode: curly oldText inside an ASCII line", "const s = \"hello\";\n", []Edit{{"“hello”", `"bye"`}}, "const s = \"bye\";\n", []Match{{0, "unicode", 1}}},
		{"unicode: ASCII oldText inside a curly line", "x := f(“a”, ‘b’) // note…\n", []Edit{{`f("a", 'b')`, "g()"}}, "x := g() // note…\n", []Match{{0, "unicode", 1}}},
		{"unicode: inside a line, CRLF and BOM kept", "\ufeffa\r\nsay “hi” now\r\n", []Edit{{`"hi"`, `"yo"`}}, "\ufeffa\r\nsay \"yo\" now\r\n", []Match{{0, "unicode", 2}}},
		{"unicode: trimmed whole lines still match", "\tif (“x”) {\n\t\ty()\n\t}\n", []Edit{{"if (\"x\") {\n  y()\n", "if (\"z\") {\n  y()\n"}}, "\tif (\"z\") {\n\t  y()\n\t}\n", []Match{{0, "unicode", 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reps, matches, err := Edits(ctx, tt.content, tt.edits)
			if err != nil {
				t.Fatal(err)
			}
			if got := Apply(tt.content, reps); got != tt.want {
				t.Errorf("result = %q, want %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.matches, matches); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEditErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		edits   []Edit
		want    EditError
		msg     string
	}{
		{"no edits", "a", nil, EditError{Code: CodeNoEdits}, "at least one"},
		{"empty oldText", "a", []Edit{{"a", "b"}, {"", "x"}}, EditError{Code: CodeEmptyOld, Index: 1}, "edit 1: oldText is empty"},
		{"not found", "a\nb\n", []Edit{{"zzz", "y"}}, EditError{Code: CodeNotFound}, "not found (tried exact, trim and unicode"},
		{"ambiguous exact", "x\ny\nx\n", []Edit{{"x", "z"}}, EditError{Code: CodeAmbiguous, Count: 2, Lines: []int{1, 3}, Level: "exact"}, "matches 2 places (exact match, lines 1, 3)"},
		{"ambiguous overlapping", "aaa", []Edit{{"aa", "b"}}, EditError{Code: CodeAmbiguous, Count: 2, Lines: []int{1, 1}, Level: "exact"}, "matches 2 places"},
		{"ambiguous at trim", " x\n  x\n", []Edit{{"x \n", "y\n"}}, EditError{Code: CodeAmbiguous, Count: 2, Lines: []int{1, 2}, Level: "trim"}, "trim match"},
		{"blank lines never fuzzy-match", "a\n\n\nb\n", []Edit{{" \n \n \n \n", "x"}}, EditError{Code: CodeNotFound}, "not found"},
		{"unicode: part of a folded ellipsis is no match", "wait…\n", []Edit{{"t.", "x"}}, EditError{Code: CodeNotFound}, "not found"},
		{"ambiguous at unicode inside lines", "“a” and “a”\n", []Edit{{`"a"`, "b"}}, EditError{Code: CodeAmbiguous, Count: 2, Lines: []int{1, 1}, Level: "unicode"}, "unicode match"},
		{"overlap", "abcdef", []Edit{{"cde", "x"}, {"abc", "y"}}, EditError{Code: CodeOverlap, Index: 1, Other: 0}, "edits 0 and 1 overlap"},
		{"later edits are checked even when earlier ones match", "a b", []Edit{{"a", "x"}, {"q", "y"}}, EditError{Code: CodeNotFound, Index: 1}, "edit 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Edits(ctx, tt.content, tt.edits)
			var ee *EditError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v", err)
			}
			got := *ee
			got.msg = ""
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(EditError{})); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if !strings.Contains(ee.Error(), tt.msg) {
				t.Errorf("message %q lacks %q", ee.Error(), tt.msg)
			}
		})
	}
}

func TestAmbiguousListsAFewLines(t *testing.T) {
	_, _, err := Edits(ctx, strings.Repeat("x\n", 5000), []Edit{{"x", "y"}})
	var ee *EditError
	if !errors.As(err, &ee) || ee.Count != 5000 || len(ee.Lines) != maxListedLines || !strings.Contains(ee.Error(), ", …") {
		t.Fatalf("err = %+v", err)
	}
}

func TestDiff(t *testing.T) {
	old := "a\r\nb\r\nc\r\n"
	reps, _, err := Edits(ctx, old, []Edit{{"b", "B"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n"
	if got := Diff("a/f.txt", "b/f.txt", old, reps); got != want {
		t.Errorf("diff = %q, want %q", got, want)
	}
	if got := DiffStrings("a/f.txt", "b/f.txt", old, Apply(old, reps)); got != want {
		t.Errorf("DiffStrings = %q, want %q", got, want)
	}
}

// FuzzEdits: no content or edit panics the matcher; a success replaces
// disjoint in-range byte ranges, and an exact match means oldText (with the
// file's line endings) is what was replaced.
func FuzzEdits(f *testing.F) {
	f.Add("a\r\nb\nc", "b\n", "x")
	f.Add("\ufeff“q” — x…\u00a0y\n", `"q" - x... y`, "z")
	f.Add("aaa", "a", "")
	f.Add("  a\n\tb  \n", "a\nb\n", "c\n")
	f.Fuzz(func(t *testing.T, content, old, new string) {
		reps, matches, err := Edits(ctx, content, []Edit{{old, new}, {old + "\x00", new}})
		if err != nil {
			return
		}
		for _, r := range reps {
			if r.Start < 0 || r.End < r.Start || r.End > len(content) {
				t.Fatalf("replacement %+v out of range for %d bytes", r, len(content))
			}
		}
		if matches[0].Level == LevelExact && normEOL(content[reps[0].Start:reps[0].End]) != normEOL(old) {
			t.Fatalf("exact match replaced %q, not %q", content[reps[0].Start:reps[0].End], old)
		}
		_ = Apply(content, reps)
	})
}

// TestDiffWindowMatchesFullDiff: the windowed diff equals the diff of the
// whole texts, wherever the edits fall.
func TestDiffWindowMatchesFullDiff(t *testing.T) {
	var b strings.Builder
	for i := range 60 {
		b.WriteString("line " + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "\n")
	}
	doc := b.String()
	lines := strings.SplitAfter(doc, "\n")
	cases := [][]Edit{
		{{lines[0], "first\n"}},
		{{lines[30], "middle\nadded\n"}},
		{{lines[59], ""}},
		{{lines[2], "x\n"}, {lines[50] + lines[51], "y\n"}},
		{{lines[20] + lines[21], ""}, {lines[24], "z\n"}},
	}
	for i, edits := range cases {
		reps, _, err := Edits(ctx, doc, edits)
		if err != nil {
			t.Fatal(err)
		}
		want := DiffStrings("a/f", "b/f", doc, Apply(doc, reps))
		if got := Diff("a/f", "b/f", doc, reps); got != want {
			t.Errorf("case %d:\n got %q\nwant %q", i, got, want)
		}
	}
	noEOL := "a\nb\nc"
	reps, _, _ := Edits(ctx, noEOL, []Edit{{"c", "C"}})
	if got, want := Diff("a/f", "b/f", noEOL, reps), DiffStrings("a/f", "b/f", noEOL, "a\nb\nC"); got != want {
		t.Errorf("no final newline:\n got %q\nwant %q", got, want)
	}
}

// ctx is the context of calls that are not about cancellation.
var ctx = context.Background()
