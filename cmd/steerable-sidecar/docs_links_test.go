package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is the newcomer's map: a table of contents of its own
// sections, and links into docs/ for the references. These tests keep both
// true as sections move: every heading is in the contents, in order, and
// every relative link of the README, docs/ and the clients' READMEs names a
// file that exists and, with a #fragment, a heading in it.

// markdownDocs are the documents whose links are checked, relative to the
// repository root.
func markdownDocs(t *testing.T) []string {
	t.Helper()
	docs := []string{"README.md", "clients/typescript/README.md", "clients/python/README.md"}
	more, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		docs = append(docs, strings.TrimPrefix(filepath.ToSlash(m), "../../"))
	}
	return docs
}

// TestREADMETableOfContents: the "Contents" list names every ## and ###
// heading of the README, in order, each linked to its anchor.
func TestREADMETableOfContents(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	inContents := false
	for _, h := range markdownLines(string(b)) {
		switch {
		case h == "## Contents":
			inContents = true
		case strings.HasPrefix(h, "## ") || strings.HasPrefix(h, "### "):
			inContents = false
			text := strings.TrimLeft(h, "# ")
			want = append(want, "["+strings.ReplaceAll(text, "`", "")+"](#"+headingAnchor(text)+")")
		case inContents && strings.HasPrefix(strings.TrimSpace(h), "- ["):
			got = append(got, strings.TrimPrefix(strings.TrimSpace(h), "- "))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README.md's Contents lists:\n%s\n\nits headings are:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDocsLinksResolve: no relative link of the README, docs/ or the
// clients' READMEs points at a missing file or a missing heading.
func TestDocsLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, doc := range markdownDocs(t) {
		b, err := os.ReadFile(filepath.Join("../..", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range markdownLines(string(b)) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				if msg := checkLink(doc, m[1]); msg != "" {
					t.Errorf("%s: link %s: %s", doc, m[1], msg)
				}
			}
		}
	}
}

// checkLink resolves one link target written in doc; "" when it holds.
func checkLink(doc, target string) string {
	if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
		return "" // https:, mailto: — not ours to check offline
	}
	file, frag, _ := strings.Cut(target, "#")
	path := filepath.Join("../..", filepath.Dir(doc), file)
	if file == "" {
		path = filepath.Join("../..", doc)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "no such file"
	}
	if frag == "" {
		return ""
	}
	if st.IsDir() || !strings.HasSuffix(path, ".md") {
		return "a #fragment on something that is not a Markdown file"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	for _, h := range markdownLines(string(b)) {
		if strings.HasPrefix(h, "#") && headingAnchor(strings.TrimLeft(h, "# ")) == frag {
			return ""
		}
	}
	return "no heading with anchor #" + frag
}

// markdownLines returns the lines of a Markdown text outside fenced code.
func markdownLines(text string) []string {
	var out []string
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, l)
		}
	}
	return out
}

// headingAnchor is GitHub's anchor for a heading: lower case, punctuation
// other than '-' and '_' dropped, spaces as '-'.
func headingAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
