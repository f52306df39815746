package codesearch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var globFixture = map[string]string{
	"main.go":                  "",
	"README.md":                "",
	"a.txt":                    "",
	"b.txt":                    "",
	"z.txt":                    "",
	"src/app.go":               "",
	"src/app_test.go":          "",
	"src/lib/util.go":          "",
	"src/lib/util.ts":          "",
	"src/lib/deep/x.tsx":       "",
	"docs/guide.md":            "",
	".env":                     "",
	".envrc":                   "",
	".github/workflows/ci.yml": "",
	"src/.hidden/h.go":         "",
	"node_modules/pkg/i.js":    "",
	"node_modules/pkg/i.d.ts":  "",
	"build/out.go":             "",
	"weird {name}.go":          "",
}

func TestGlobSemantics(t *testing.T) {
	dir := tempDir(t)
	writeTree(t, dir, globFixture)
	e := engineOn(t, dir, Options{})
	cases := []struct {
		pattern, path string
		want          []string
	}{
		{"*.go", "", []string{"main.go", "weird {name}.go"}},
		{"**/*.go", "", []string{"main.go", "src/app.go", "src/app_test.go", "src/lib/util.go", "weird {name}.go"}},
		{"src/*.go", "", []string{"src/app.go", "src/app_test.go"}},
		{"src/**/*.go", "", []string{"src/app.go", "src/app_test.go", "src/lib/util.go"}},
		{"**/*_test.go", "", []string{"src/app_test.go"}},
		{"**/*.{ts,tsx}", "", []string{"src/lib/deep/x.tsx", "src/lib/util.ts"}},
		{"[a-b].txt", "", []string{"a.txt", "b.txt"}},
		{"[!a-b].txt", "", []string{"z.txt"}},
		{"?.txt", "", []string{"a.txt", "b.txt", "z.txt"}},
		{"*/*/*.go", "", []string{"src/lib/util.go"}},
		{"**", "docs", []string{"docs/guide.md"}},
		{"*.go", "src", []string{"src/app.go", "src/app_test.go"}},
		{"lib/**", "src", []string{"src/lib/deep/x.tsx", "src/lib/util.go", "src/lib/util.ts"}},
		{`weird \{name\}.go`, "", []string{"weird {name}.go"}},
		// hidden: only when the pattern names them
		{"**/*", "", []string{"README.md", "a.txt", "b.txt", "docs/guide.md", "main.go", "src/app.go", "src/app_test.go",
			"src/lib/deep/x.tsx", "src/lib/util.go", "src/lib/util.ts", "weird {name}.go", "z.txt"}},
		{".env*", "", []string{".env", ".envrc"}},
		{"{.env,.envrc}", "", []string{".env", ".envrc"}},
		{".github/**/*.yml", "", []string{".github/workflows/ci.yml"}},
		{"**/.hidden/*.go", "", []string{"src/.hidden/h.go"}},
		// ignored directories: skipped by ** unless named as the base
		{"**/*.js", "", nil},
		{"node_modules/**/*.d.ts", "", []string{"node_modules/pkg/i.d.ts"}},
		{"build/*.go", "", []string{"build/out.go"}},
		{"*.go", "build", []string{"build/out.go"}},
	}
	for _, c := range cases {
		r, err := e.Glob(context.Background(), GlobQuery{Pattern: c.pattern, Path: c.path})
		if err != nil {
			t.Errorf("%q in %q: %v", c.pattern, c.path, err)
			continue
		}
		slices.Sort(r.Files)
		if diff := cmp.Diff(c.want, r.Files); diff != "" {
			t.Errorf("%q in %q (-want +got):\n%s", c.pattern, c.path, diff)
		}
	}
}

func TestGlobOrderAndLimit(t *testing.T) {
	dir := tempDir(t)
	writeTree(t, dir, globFixture)
	setMtimes(t, dir, "src/lib/util.go", "main.go", "src/app.go", "src/app_test.go", "weird {name}.go")
	e := engineOn(t, dir, Options{})
	r, err := e.Glob(context.Background(), GlobQuery{Pattern: "**/*.go", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := GlobResult{Files: []string{"src/lib/util.go", "main.go", "src/app.go"}, Truncated: true, Matched: 5}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestGlobRefusals(t *testing.T) {
	dir := tempDir(t)
	writeTree(t, dir, globFixture)
	e := engineOn(t, dir, Options{})
	for _, c := range []struct {
		q   GlobQuery
		err error
	}{
		{GlobQuery{}, ErrEmptyPattern},
		{GlobQuery{Pattern: "src/{a,b"}, ErrBadGlob},
		{GlobQuery{Pattern: "[a"}, ErrBadGlob},
		{GlobQuery{Pattern: strings.Repeat("{a,b}", 11)}, ErrBadGlob},
		{GlobQuery{Pattern: strings.Repeat("x", MaxPatternBytes+1)}, ErrBadGlob},
		{GlobQuery{Pattern: "*.go", Path: "../"}, nil}, // checked below: escapes
		{GlobQuery{Pattern: "*.go", Path: "main.go"}, ErrNotDir},
	} {
		_, err := e.Glob(context.Background(), c.q)
		if c.err == nil {
			if err == nil || !strings.Contains(err.Error(), "path escapes the workspace") {
				t.Errorf("%+v: %v", c.q, err)
			}
			continue
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%+v: err %v, want %v", c.q, err, c.err)
		}
	}
	r, err := e.Glob(context.Background(), GlobQuery{Pattern: "nope/**/*.go"})
	if err != nil || r.Missing != "nope" || len(r.Files) != 0 {
		t.Errorf("missing base: %+v, %v", r, err)
	}
	if _, err := e.Glob(context.Background(), GlobQuery{Pattern: "/etc/*"}); err == nil || !strings.Contains(err.Error(), "path escapes the workspace") {
		t.Errorf("absolute pattern outside: %v", err)
	}
	r, err = e.Glob(context.Background(), GlobQuery{Pattern: dir + "/src/*.go"})
	if err != nil || len(r.Files) != 2 {
		t.Errorf("absolute pattern inside: %+v, %v", r, err)
	}
}

// TestGlobPruningKeepsMatches: skipping directories that cannot hold a
// match never drops one: every pattern lists the same files with the
// pruning off.
func TestGlobPruningKeepsMatches(t *testing.T) {
	dir := tempDir(t)
	writeTree(t, dir, globFixture)
	e := engineOn(t, dir, Options{})
	for _, p := range []string{"*/*.go", "src/*/*.go", "*/lib/**", "s*/l*/d*/*", "{src,docs}/*", "*/*/*/*", "**/lib/*.ts", "src/lib"} {
		g, err := parseGlob(p)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, f := range ourFilesOf(t, e) {
			if g.match(f) {
				all = append(all, f)
			}
		}
		var got []string
		got = append(got, ourFiles(t, e, "", p)...)
		if diff := cmp.Diff(all, got); diff != "" {
			t.Errorf("%q (-unpruned +pruned):\n%s", p, diff)
		}
	}
}

// FuzzGlob: any pattern either is refused or matches without panicking,
// and the pruning never refuses a directory that holds a match.
func FuzzGlob(f *testing.F) {
	f.Add("**/*.go", "src/a/b.go")
	f.Add("{a,b}/*/c", "a/x/c")
	f.Add("[!a-]x/**", "bx/y")
	f.Add(`\*/\{`, "*/{")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(path) > 1024 {
			return
		}
		g, err := parseGlob(pattern)
		if err != nil {
			return
		}
		if !g.match(path) {
			return
		}
		for i := 0; i < len(path); i++ {
			if path[i] == '/' && i > 0 && !g.mayHold(path[:i]) {
				t.Fatalf("pattern %q matches %q but prunes %q", pattern, path, path[:i])
			}
		}
	})
}

// TestGlobManyFiles: a pattern matching thousands of files returns the
// limit's worth and counts the rest.
func TestGlobManyFiles(t *testing.T) {
	dir := tempDir(t)
	for i := range 5000 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%40), fmt.Sprintf("f%d.txt", i))
		if i%40 == i {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := engineOn(t, dir, Options{})
	e.maxLimit = MaxLimit
	r, err := e.Glob(context.Background(), GlobQuery{Pattern: "**/*.txt", Limit: 10})
	if err != nil || len(r.Files) != 10 || r.Matched != 5000 || !r.Truncated {
		t.Fatalf("%d files, matched %d, truncated %v, %v", len(r.Files), r.Matched, r.Truncated, err)
	}
}

// TestGlobSkipsTooLarge: a file over MaxFileBytes is skipped and counted
// by glob as by grep — neither listed nor matched — whether it is reached
// by the walk or named by the pattern, and a file at the limit is listed.
func TestGlobSkipsTooLarge(t *testing.T) {
	dir := tempDir(t)
	writeTree(t, dir, map[string]string{
		"small.go":     "package x\n",
		"limit.go":     strings.Repeat("x", 1024),
		"big.go":       strings.Repeat("x", 1025),
		"sub/huge.go":  strings.Repeat("x", 4096),
		"sub/other.md": strings.Repeat("x", 4096), // too large, but not matched: not counted
	})
	setMtimes(t, dir, "small.go", "limit.go")
	e := engineOn(t, dir, Options{MaxFileBytes: 1024})
	for _, c := range []struct {
		pattern string
		want    GlobResult
	}{
		{"**/*.go", GlobResult{Files: []string{"small.go", "limit.go"}, Matched: 2, TooLarge: 2}},
		{"big.go", GlobResult{Matched: 0, TooLarge: 1}},
		{"sub/*.go", GlobResult{Matched: 0, TooLarge: 1}},
		{"*.md", GlobResult{Matched: 0}},
	} {
		r, err := e.Glob(context.Background(), GlobQuery{Pattern: c.pattern})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, r); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.pattern, diff)
		}
	}
	g, err := e.Grep(context.Background(), GrepQuery{Query: Query{Text: "x"}, Glob: "*.go", Output: OutputFiles})
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats.TooLarge != 2 {
		t.Errorf("grep counted %d too large, glob 2", g.Stats.TooLarge)
	}
}
