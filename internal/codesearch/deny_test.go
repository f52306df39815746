package codesearch

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/files"
)

// The attack: the workspace is a home, and a search for "secret" (or a
// listing) walks into ~/.ssh and ~/.aws. grep and glob skip every
// credential store of the deny list — wherever the walk starts, a
// wildcard entry's matches too — count them in Stats.Denied, and never
// return a name or a line from one; a search path inside one is refused.
func TestSearchSkipsCredentialStores(t *testing.T) {
	home := tempDir(t)
	writeTree(t, home, map[string]string{
		".ssh/id_ed25519":      "secret key",
		".aws/credentials":     "secret aws",
		".netrc":               "secret netrc",
		".config/gh/hosts.yml": "secret gh",
		".config/app/prefs":    "not a secret",
		"keys/a_key":           "secret a",
		"keys/a_key.pub":       "public secret",
		"notes.txt":            "not a secret",
	})
	ws, err := files.Open(home, true, files.WithDeny(func() []files.DenyEntry {
		return []files.DenyEntry{{Path: home + "/.ssh", Name: "~/.ssh"}, {Path: home + "/.aws", Name: "~/.aws"},
			{Path: home + "/.netrc", Name: "~/.netrc"}, {Path: home + "/.config/gh", Name: "~/.config/gh"},
			{Path: home + "/keys/*_key", Name: "~/keys/*_key"}}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	e := New(ws, Options{})
	e.maxLimit = 1 << 20
	leaks := func(what string, paths []string) {
		for _, p := range paths {
			if strings.HasPrefix(p, ".ssh") || strings.HasPrefix(p, ".aws") || p == ".netrc" || strings.Contains(p, "gh/") || p == "keys/a_key" {
				t.Errorf("%s lists %s", what, p)
			}
		}
	}
	for _, q := range []GrepQuery{{Query: Query{Text: "secret"}, Glob: ".*/**"}, {Query: Query{Text: "secret"}, Glob: "**/.*"}, {Query: Query{Text: "secret"}, Path: ".config", Glob: "**"}, {Query: Query{Text: "secret"}, Path: "keys"}} {
		r := grep(t, e, q)
		var paths []string
		for _, h := range r.Hits {
			paths = append(paths, h.Path)
		}
		leaks("grep "+q.Glob+" in "+q.Path, paths)
		if r.Stats.Denied == 0 {
			t.Errorf("grep %+v counts no denied store: %+v", q, r.Stats)
		}
	}
	r := grep(t, e, GrepQuery{Query: Query{Text: "secret"}, Glob: ".*/**"})
	if r.Stats.Denied != 4 || !slices.ContainsFunc(r.Hits, func(h Hit) bool { return h.Path == ".config/app/prefs" }) {
		t.Errorf("grep of the hidden tree: %+v", r)
	}
	for _, q := range []GlobQuery{{Pattern: ".*/**"}, {Pattern: "**/*_key*"}, {Pattern: "keys/*"}, {Pattern: "**/.netrc"}} {
		g, err := e.Glob(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		leaks("glob "+q.Pattern, g.Files)
		if g.Denied == 0 {
			t.Errorf("glob %q counts no denied store: %+v", q.Pattern, g)
		}
	}
	for _, path := range []string{".ssh", ".config/gh", home + "/.aws", "keys/a_key"} {
		if _, err := e.Grep(context.Background(), GrepQuery{Query: Query{Text: "secret"}, Path: path}); !errors.Is(err, files.ErrDenied) {
			t.Errorf("grep in %s: %v, want ErrDenied", path, err)
		}
	}
	if _, err := e.Glob(context.Background(), GlobQuery{Pattern: ".ssh/*"}); !errors.Is(err, files.ErrDenied) {
		t.Errorf("glob .ssh/*: %v, want ErrDenied", err)
	}
}
