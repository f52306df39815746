package textedit

import (
	"strings"
	"testing"
)

// The repeated-lines case: 300,000 identical lines against a
// 3,000-line oldText (or hunk) whose last line differs, so every position
// matches all but one line, and the same with the last line kept, so that
// every position matches.
const (
	repeatedLine = "\tsame line of text\n"
	fileLines    = 300_000
	oldLines     = 3_000
)

func repeatedCase(matchAll bool) (content, old string) {
	content = strings.Repeat(repeatedLine, fileLines)
	old = strings.Repeat(repeatedLine, oldLines-1) + "\tanother line\n"
	if matchAll {
		old = strings.Repeat(repeatedLine, oldLines)
	}
	return content, old
}

func BenchmarkEditsRepeatedLines(b *testing.B) {
	for _, matchAll := range []bool{false, true} {
		name := map[bool]string{false: "notFound", true: "ambiguous"}[matchAll]
		b.Run(name, func(b *testing.B) {
			content, old := repeatedCase(matchAll)
			b.SetBytes(int64(len(content)))
			for i := 0; i < b.N; i++ {
				if _, _, err := Edits(ctx, content, []Edit{{old, "x\n"}}); err == nil {
					b.Fatal("matched one place")
				}
			}
		})
	}
}

func BenchmarkApplyHunksRepeatedLines(b *testing.B) {
	for _, matchAll := range []bool{false, true} {
		name := map[bool]string{false: "notFound", true: "ambiguous"}[matchAll]
		b.Run(name, func(b *testing.B) {
			content, old := repeatedCase(matchAll)
			var lines []string
			for _, l := range strings.SplitAfter(strings.TrimSuffix(old, "\n"), "\n") {
				lines = append(lines, " "+strings.TrimSuffix(l, "\n"))
			}
			lines = append(lines, "+added")
			h := hunk("", false, lines...)
			b.SetBytes(int64(len(content)))
			for i := 0; i < b.N; i++ {
				if _, err := ApplyHunks(ctx, content, []Hunk{h}); err == nil {
					b.Fatal("applied")
				}
			}
		})
	}
}
