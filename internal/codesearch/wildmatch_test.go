package codesearch

import (
	"strings"
	"testing"
	"time"
)

// wildmatchCases are git's t3070-wildmatch.sh cases for wildmatch with
// WM_PATHNAME (the first result column there), as text, pattern, want.
var wildmatchCases = []struct {
	text, pattern string
	want          bool
}{
	{"foo", "foo", true}, {"foo", "bar", false}, {"foo", "???", true}, {"foo", "??", false},
	{"foo", "*", true}, {"foo", "f*", true}, {"foo", "*f", false}, {"foo", "*foo*", true},
	{"foobar", "*ob*a*r*", true}, {"aaaaaaabababab", "*ab", true}, {"foo*", `foo\*`, true},
	{"foobar", `foo\*bar`, false}, {`f\oo`, `f\\oo`, true}, {"ball", "*[al]?", true},
	{"ten", "[ten]", false}, {"ten", "**[!te]", true}, {"ten", "**[!ten]", false},
	{"ten", "t[a-g]n", true}, {"ten", "t[!a-g]n", false}, {"ton", "t[!a-g]n", true},
	{"ton", "t[^a-g]n", true}, {"a]b", "a[]]b", true}, {"a-b", "a[]-]b", true},
	{"a]b", "a[]-]b", true}, {"aab", "a[]-]b", false}, {"aab", "a[]a-]b", true}, {"]", "]", true},
	// slashes
	{"foo/baz/bar", "foo*bar", false}, {"foo/baz/bar", "foo**bar", false}, {"foobazbar", "foo**bar", true},
	{"foo/baz/bar", "foo/**/bar", true}, {"foo/baz/bar", "foo/**/**/bar", true},
	{"foo/b/a/z/bar", "foo/**/bar", true}, {"foo/b/a/z/bar", "foo/**/**/bar", true},
	{"foo/bar", "foo/**/bar", true}, {"foo/bar", "foo/**/**/bar", true}, {"foo/bar", "foo?bar", false},
	{"foo/bar", "foo[/]bar", false}, {"foo/bar", "foo[^a-z]bar", false},
	{"foo/bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", false}, {"foo-bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", true},
	{"foo", "**/foo", true}, {"XXX/foo", "**/foo", true}, {"bar/baz/foo", "**/foo", true},
	{"bar/baz/foo", "*/foo", false}, {"foo/bar/baz", "**/bar*", false}, {"deep/foo/bar/baz", "**/bar/*", true},
	{"deep/foo/bar/baz/", "**/bar/*", false}, {"deep/foo/bar/baz/", "**/bar/**", true},
	{"deep/foo/bar", "**/bar/*", false}, {"deep/foo/bar/", "**/bar/**", true}, {"foo/bar/baz", "**/bar**", false},
	{"foo/bar/baz/x", "*/bar/**", true}, {"deep/foo/bar/baz/x", "*/bar/**", false},
	{"deep/foo/bar/baz/x", "**/bar/*/*", true}, {"abc", "abc/**", false}, {"abc/x/y", "abc/**", true},
	// classes
	{"a1B", "[[:alpha:]][[:digit:]][[:upper:]]", true}, {"a", "[[:digit:][:upper:][:space:]]", false},
	{"A", "[[:digit:][:upper:][:space:]]", true}, {"1", "[[:digit:][:upper:][:space:]]", true},
	{"1", "[[:digit:][:upper:][:spaci:]]", false}, {" ", "[[:digit:][:upper:][:space:]]", true},
	{".", "[[:digit:][:upper:][:space:]]", false}, {".", "[[:digit:][:punct:][:space:]]", true},
	{"5", "[[:xdigit:]]", true}, {"f", "[[:xdigit:]]", true}, {"D", "[[:xdigit:]]", true},
	{"_", "[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]", true},
	{".", "[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", true},
	{"5", "[a-c[:digit:]x-z]", true}, {"b", "[a-c[:digit:]x-z]", true}, {"y", "[a-c[:digit:]x-z]", true},
	{"q", "[a-c[:digit:]x-z]", false},
	// malformed and corner cases
	{"]", `[\\-^]`, true}, {"[", `[\\-^]`, false}, {"-", `[\-_]`, true}, {"]", `[\]]`, true},
	{`\]`, `[\]]`, false}, {`\`, `[\]]`, false}, {"ab", "a[]b", false}, {"a[]b", "a[]b", false},
	{"ab[", "ab[", false}, {"ab", "[!", false}, {"ab", "[-", false}, {"-", "[-]", true}, {"-", "[a-", false},
	{"-", "[!a-", false}, {"-", "[--A]", true}, {"5", "[--A]", true}, {" ", "[ --]", true}, {"$", "[ --]", true},
	{"-", "[ --]", true}, {"0", "[ --]", false}, {"-", "[---]", true}, {"-", "[------]", true},
	{"j", "[a-e-n]", false}, {"-", "[a-e-n]", true}, {"a", "[!------]", true}, {"[", "[]-a]", false},
	{"^", "[]-a]", true}, {"^", "[!]-a]", false}, {"[", "[!]-a]", true}, {"^", "[a^bc]", true},
	{"-b]", "[a-]b]", true}, {`\`, `[\]`, false}, {`\`, `[\\]`, true}, {`\`, `[!\\]`, false},
	{"G", `[A-\\]`, true}, {"aaabbb", "b*a", false}, {"aabcaa", "*ba*", false}, {",", "[,]", true},
	{",", `[\\,]`, true}, {`\`, `[\\,]`, true}, {"-", "[,-.]", true}, {"+", "[,-.]", false},
	{"-.]", "[,-.]", false}, {"2", `[\1-\3]`, true}, {"3", `[\1-\3]`, true}, {"4", `[\1-\3]`, false},
	{`\`, `[[-\]]`, true}, {"[", `[[-\]]`, true}, {"]", `[[-\]]`, true}, {"-", `[[-\]]`, false},
	// recursion
	{"-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", true},
	{"-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", false},
	{"-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*", false},
	{"XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", true},
	{"XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", false},
	{"abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", "**/*a*b*g*n*t", true},
	{"abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", "**/*a*b*g*n*t", false},
	{"foo", "*/*/*", false}, {"foo/bar", "*/*/*", false}, {"foo/bba/arr", "*/*/*", true},
	{"foo/bb/aa/rr", "*/*/*", false}, {"foo/bb/aa/rr", "**/**/**", true}, {"abcXdefXghi", "*X*i", true},
	{"ab/cXd/efXg/hi", "*X*i", false}, {"ab/cXd/efXg/hi", "*/*X*/*/*i", true}, {"ab/cXd/efXg/hi", "**/*X*/**/*i", true},
}

func TestWildmatch(t *testing.T) {
	for _, c := range wildmatchCases {
		if got := wildmatch(c.pattern, c.text); got != c.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", c.pattern, c.text, got, c.want)
		}
	}
}

// TestWildmatchBounded: patterns that make a backtracking matcher take
// exponential time return at once. The "**/" one hung git's algorithm as
// ported before the memo (a regression test); the bound is generous,
// since an exponential run would not finish at all.
func TestWildmatchBounded(t *testing.T) {
	for _, c := range []struct{ pattern, text string }{
		{strings.Repeat("*a", 30) + "b", strings.Repeat("a", 5000)},
		{strings.Repeat("**/", 30) + "b", strings.Repeat("a/", 500)},
		{strings.Repeat("**/*a", 30) + "/b", strings.Repeat("a/", 500)},
		{strings.Repeat("?*", 60) + "b", strings.Repeat("a", 2000)},
	} {
		start := time.Now()
		if wildmatch(c.pattern, c.text) {
			t.Fatalf("%q matched", c.pattern)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%q took %v", c.pattern, d)
		}
	}
}

func TestParseRule(t *testing.T) {
	cases := []struct {
		line string
		want rule
		ok   bool
	}{
		{"", rule{}, false},
		{"# comment", rule{}, false},
		{"   ", rule{}, false},
		{"/", rule{}, false},
		{"*.log", rule{glob: "*.log", basename: true, kind: kindSuffix, lit: ".log"}, true},
		{"!keep.log", rule{glob: "keep.log", negate: true, basename: true, kind: kindExact, lit: "keep.log"}, true},
		{"build/", rule{glob: "build", dirOnly: true, basename: true, kind: kindExact, lit: "build"}, true},
		{"/build/", rule{glob: "build", dirOnly: true, kind: kindExact, lit: "build"}, true},
		{"docs/*.md", rule{glob: "docs/*.md"}, true},
		{`\#hash`, rule{glob: `\#hash`, basename: true}, true},
		{`\!bang`, rule{glob: `\!bang`, basename: true}, true},
		{"trail   ", rule{glob: "trail", basename: true, kind: kindExact, lit: "trail"}, true},
		{`esc\ `, rule{glob: `esc\ `, basename: true}, true},
		{`esc\  `, rule{glob: `esc\ `, basename: true}, true},
		{"**/gen/", rule{glob: "**/gen", dirOnly: true}, true},
	}
	for _, c := range cases {
		got, ok := parseRule(c.line)
		if ok != c.ok || got != c.want {
			t.Errorf("parseRule(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestRuleSetLastMatchWins: within one file the last matching rule
// decides, and a CRLF file or a BOM changes nothing.
func TestRuleSetLastMatchWins(t *testing.T) {
	for _, content := range []string{"*.log\n!keep.log\n", "\xef\xbb\xbf*.log\r\n!keep.log\r\n"} {
		rs := parseIgnore([]byte(content))
		for _, c := range []struct {
			path string
			want verdict
		}{{"a.log", ignored}, {"keep.log", whitelisted}, {"dir/keep.log", whitelisted}, {"a.txt", unmatched}} {
			base := c.path[strings.LastIndexByte(c.path, '/')+1:]
			if got := rs.match(c.path, base, false); got != c.want {
				t.Errorf("%q: match(%q) = %v, want %v", content, c.path, got, c.want)
			}
		}
	}
}

// FuzzIgnoreRules feeds arbitrary ignore files and paths to the parser
// and the matcher: they must not panic, must return quickly, and the
// cheap tests (exact, suffix) must agree with wildmatch.
func FuzzIgnoreRules(f *testing.F) {
	f.Add(".gitignore content\n*.log\n!keep.log\n/build/\n", "a/b/keep.log", true)
	f.Add("[[:alpha:]\n\\\n**/x/**\n[!a-]z\n", "x/y/z", false)
	f.Add("*a*a*a*a*a*a*b\n", strings.Repeat("a", 200), false)
	f.Fuzz(func(t *testing.T, content, path string, isDir bool) {
		if len(content) > 4096 || len(path) > 1024 {
			return
		}
		rs := parseIgnore([]byte(content))
		base := path[strings.LastIndexByte(path, '/')+1:]
		rs.match(path, base, isDir)
		for _, r := range rs.rules {
			if r.kind == kindGlob {
				continue
			}
			name := path
			if r.basename {
				name = base
			}
			if r.dirOnly && !isDir {
				continue
			}
			if got, want := r.matches(path, base, isDir), wildmatch(r.glob, name); got != want {
				t.Fatalf("rule %+v on %q: fast test %v, wildmatch %v", r, name, got, want)
			}
		}
	})
}
