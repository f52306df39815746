package codesearch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ignoreFixture exercises the ignore rules: nested .gitignore files with
// negations, anchored and unanchored patterns, directory-only rules,
// escapes, .ignore outranking .gitignore, .git/info/exclude, a nested
// repository that does not inherit its parent's rules, and hidden files.
var ignoreFixture = map[string]string{
	".git/info/exclude": "excluded.txt\n# comment\n",
	".git/HEAD":         "ref: refs/heads/main\n",
	".gitignore": "*.log\n!keep.log\n/build-out/\ndocs/*.tmp\n**/gen/\ntmp*\n!tmp-keep.txt\n" +
		"\\#hash.txt\ntrailing.txt   \nescaped\\ \n[abc].txt\nx?.md\ndironly/\n\\!bang.txt\n" +
		"deep/**/z.c\nall/**\n!all/keep.c\nimportant.log\nexcl-over.txt\n!.shown\n",
	".ignore":                 "secret/\n!important.log\n",
	"a.txt":                   "a",
	"keep.log":                "k",
	"other.log":               "o",
	"important.log":           "i",
	"excluded.txt":            "e",
	"#hash.txt":               "h",
	"trailing.txt":            "t",
	"escaped ":                "s",
	"escaped":                 "s",
	"b.txt":                   "b",
	"d.txt":                   "d",
	"xy.md":                   "x",
	"xyz.md":                  "x",
	"!bang.txt":               "b",
	"tmp1.txt":                "t",
	"tmp-keep.txt":            "t",
	"build-out/x.c":           "x",
	"sub/build-out/y.c":       "y",
	"docs/a.tmp":              "a",
	"docs/in/b.tmp":           "b",
	"src/gen/g.go":            "g",
	"gen/h.go":                "h",
	"secret/s.txt":            "s",
	"sub/.gitignore":          "!other.log\n*.txt\n!sub-keep.txt\n",
	"sub/other.log":           "o",
	"sub/a.txt":               "a",
	"sub/sub-keep.txt":        "k",
	"sub/deep/z.txt":          "z",
	"sub/deep/.gitignore":     "!z.txt\n",
	"sub/dironly":             "a file named like a directory-only rule",
	"dironly/x.c":             "x",
	"deep/z.c":                "z",
	"deep/a/b/z.c":            "z",
	"deep/a/b/y.c":            "y",
	"all/in.c":                "i",
	"all/keep.c":              "k",
	"vendor-repo/.git/HEAD":   "ref: refs/heads/main\n",
	"vendor-repo/.gitignore":  "*.md\n",
	"vendor-repo/a.log":       "a",
	"vendor-repo/r.md":        "r",
	"vendor-repo/tmp2.txt":    "t",
	".hidden/h.txt":           "h",
	".env":                    "e",
	".shown":                  "a hidden file whitelisted by a negation is listed",
	"sub/.dotfile":            "d",
	"node_modules/m.js":       "m",
	"pkg/node_modules/n.js":   "n",
	"target/t.rs":             "t",
	"sub/target":              "a file, not a directory: the default set names directories",
	"unicode/café.txt":        "c",
	"space dir/file name.txt": "f",
	"excl-over.txt":           "e",
}

// defaultSetFile writes DefaultIgnore as a file for rg's --ignore-file,
// which, like our default set, ranks below every other ignore file.
func defaultSetFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "defaults.ignore")
	if err := os.WriteFile(p, []byte(strings.Join(DefaultIgnore, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rgFiles runs `rg --files` in dir with the given extra arguments; the
// test skips when ripgrep is not installed (.ci/run installs it).
func rgFiles(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed: the comparison needs it (apt-get install ripgrep)")
	}
	cmd := exec.Command(rg, append([]string{"--files", "--no-config", "--no-ignore-parent", "--no-ignore-global"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return nil
	}
	if err != nil {
		t.Fatalf("rg: %v", err)
	}
	var list []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			list = append(list, strings.TrimPrefix(l, "./"))
		}
	}
	slices.Sort(list)
	return list
}

func ourFilesOf(t *testing.T, e *Engine) []string { return ourFiles(t, e, "", "**") }

func ourFiles(t *testing.T, e *Engine, path, pattern string) []string {
	t.Helper()
	r, err := e.Glob(context.Background(), GlobQuery{Pattern: pattern, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(r.Files)
	return r.Files
}

// TestIgnoreRulesMatchRipgrep lists the fixture with glob "**" and with
// ripgrep's `rg --files` (the default set given to rg as an ignore file)
// and wants the same files. A subdirectory must list exactly the files of
// the whole listing below it. (ripgrep itself, given a relative path,
// does not apply anchored patterns of ignore files above that path, such
// as the root's "deep/**/z.c" to deep/z.c; git and we do.)
func TestIgnoreRulesMatchRipgrep(t *testing.T) {
	dir := tempDir(t)
	writeTree(t, dir, ignoreFixture)
	e := engineOn(t, dir, Options{})
	all := rgFiles(t, dir, "--ignore-file", defaultSetFile(t))
	if diff := cmp.Diff(all, ourFiles(t, e, "", "**")); diff != "" {
		t.Errorf("glob ** vs rg --files (-rg +ours):\n%s", diff)
	}
	for _, sub := range []string{"sub", "sub/deep", "vendor-repo", "deep", "all", ".hidden", "node_modules"} {
		want := slices.DeleteFunc(slices.Clone(all), func(p string) bool { return !strings.HasPrefix(p, sub+"/") })
		if sub == ".hidden" || sub == "node_modules" { // named: searched though hidden or ignored
			want = []string{sub + "/" + map[string]string{".hidden": "h.txt", "node_modules": "m.js"}[sub]}
		}
		if diff := cmp.Diff(want, ourFiles(t, e, sub, "**")); diff != "" {
			t.Errorf("glob ** in %q vs the whole listing below it (-want +got):\n%s", sub, diff)
		}
	}
}

// TestIgnoreRulesExpected pins the fixture's listing by name, so the
// semantics are documented here even where rg is absent, and checks a
// few decisions that ripgrep and git make differently from a naive
// matcher.
func TestIgnoreRulesExpected(t *testing.T) {
	dir := tempDir(t)
	writeTree(t, dir, ignoreFixture)
	got := ourFiles(t, engineOn(t, dir, Options{}), "", "**")
	want := []string{
		".shown",                  // hidden, but whitelisted by !.shown
		"all/keep.c",              // all/** then !all/keep.c
		"d.txt",                   // [abc].txt spares d
		"deep/a/b/y.c",            // deep/**/z.c spares y.c
		"docs/in/b.tmp",           // docs/*.tmp: * does not cross /
		"escaped",                 // "escaped\ " ignores "escaped " only
		"important.log",           // .ignore's !important.log outranks .gitignore's important.log
		"keep.log",                // !keep.log after *.log
		"space dir/file name.txt", //
		"sub/build-out/y.c",       // /build-out/ is anchored at the root
		"sub/deep/z.txt",          // sub/deep's !z.txt outranks sub's *.txt
		"sub/dironly",             // dironly/ matches directories only
		"sub/other.log",           // sub's !other.log outranks the root's *.log
		"sub/sub-keep.txt",        //
		"sub/target",              // target/ (default set) matches directories only
		"tmp-keep.txt",            // !tmp-keep.txt after tmp*
		"unicode/café.txt",        //
		"vendor-repo/a.log",       // a nested repository: the root's *.log stops at its .git
		"vendor-repo/tmp2.txt",    // and so does tmp*
		"xyz.md",                  // x?.md: ? is one character
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
}
