package codesearch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/files"
)

var grepFixture = map[string]string{
	".git/HEAD":         "ref: refs/heads/main\n",
	".gitignore":        "*.log\n",
	"new.go":            "package main\n// parseConfig reads it\nfunc parseConfig() {}\n",
	"mid/old.go":        "parseConfig()\n",
	"mid/notes.md":      "see parseConfig\n",
	"deep/x/y/z.go":     "x := parseConfig()\n",
	"skip.log":          "parseConfig in an ignored file\n",
	".env":              "PARSECONFIG=1 parseConfig\n",
	".github/ci.yml":    "run: parseConfig\n",
	"node_modules/m.js": "parseConfig\n",
	"bin.dat":           "parseConfig\x00\x01\x02",
}

func grepFixtureEngine(t *testing.T) (*Engine, string) {
	dir := tempDir(t)
	writeTree(t, dir, grepFixture)
	setMtimes(t, dir, "mid/notes.md", "new.go", "deep/x/y/z.go", "mid/old.go", ".env", ".github/ci.yml", "node_modules/m.js")
	return engineOn(t, dir, Options{}), dir
}

func grep(t *testing.T, e *Engine, q GrepQuery) GrepResult {
	t.Helper()
	r, err := e.Grep(context.Background(), q)
	if err != nil {
		t.Fatalf("grep %+v: %v", q, err)
	}
	return r
}

func needle(q GrepQuery) GrepQuery {
	q.Query = Query{Text: "parseConfig"}
	return q
}

// TestGrepOutputs: the three outputs, newest file first, hits of a file
// in line order; ignored, hidden, binary and node_modules files skipped.
func TestGrepOutputs(t *testing.T) {
	e, _ := grepFixtureEngine(t)
	r := grep(t, e, needle(GrepQuery{}))
	want := []Hit{
		{Path: "mid/notes.md", Line: 1, Text: "see parseConfig"},
		{Path: "new.go", Line: 2, Text: "// parseConfig reads it"},
		{Path: "new.go", Line: 3, Text: "func parseConfig() {}"},
		{Path: "deep/x/y/z.go", Line: 1, Text: "x := parseConfig()"},
		{Path: "mid/old.go", Line: 1, Text: "parseConfig()"},
	}
	if diff := cmp.Diff(want, r.Hits); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
	if r.MatchedFiles != 4 || r.MatchedLines != 5 || r.Truncated || r.Stats.Binary != 1 || r.Stats.Searched != 4 {
		t.Errorf("totals %+v", r)
	}
	r = grep(t, e, needle(GrepQuery{Output: OutputFiles}))
	if diff := cmp.Diff([]string{"mid/notes.md", "new.go", "deep/x/y/z.go", "mid/old.go"}, r.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	r = grep(t, e, needle(GrepQuery{Output: OutputCount}))
	wantCounts := []FileCount{{"mid/notes.md", 1}, {"new.go", 2}, {"deep/x/y/z.go", 1}, {"mid/old.go", 1}}
	if diff := cmp.Diff(wantCounts, r.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

// TestGrepLimit: the limit keeps the newest results and says it cut.
func TestGrepLimit(t *testing.T) {
	e, _ := grepFixtureEngine(t)
	r := grep(t, e, needle(GrepQuery{Limit: 2}))
	if len(r.Hits) != 2 || r.Hits[1].Path != "new.go" || r.Hits[1].Line != 2 || !r.Truncated || r.MatchedLines != 5 {
		t.Errorf("%+v", r)
	}
	r = grep(t, e, needle(GrepQuery{Limit: 1, Output: OutputFiles}))
	if diff := cmp.Diff([]string{"mid/notes.md"}, r.Files); diff != "" || !r.Truncated {
		t.Errorf("files: %v truncated %v", r.Files, r.Truncated)
	}
	e.maxLimit = MaxLimit
	if got := e.limit(5000); got != MaxLimit {
		t.Errorf("limit(5000) = %d", got)
	}
	if got := e.limit(0); got != DefaultLimit {
		t.Errorf("limit(0) = %d", got)
	}
}

// TestGrepSelection: glob filters (names at any depth, paths, negation,
// braces), hidden files only when named, explicit paths searched even
// when ignored or hidden.
func TestGrepSelection(t *testing.T) {
	e, _ := grepFixtureEngine(t)
	cases := []struct {
		q    GrepQuery
		want []string
	}{
		{GrepQuery{Glob: "*.go"}, []string{"new.go", "deep/x/y/z.go", "mid/old.go"}},
		{GrepQuery{Glob: "mid/*"}, []string{"mid/notes.md", "mid/old.go"}},
		{GrepQuery{Glob: "**/y/*.go"}, []string{"deep/x/y/z.go"}},
		{GrepQuery{Glob: "!*.go"}, []string{"mid/notes.md"}},
		{GrepQuery{Glob: "*.{md,yml}"}, []string{"mid/notes.md"}},
		{GrepQuery{Glob: ".env*"}, []string{".env"}},
		{GrepQuery{Glob: ".github/*.yml"}, []string{".github/ci.yml"}},
		{GrepQuery{Path: "mid"}, []string{"mid/notes.md", "mid/old.go"}},
		{GrepQuery{Path: "node_modules"}, []string{"node_modules/m.js"}},
		{GrepQuery{Path: "skip.log"}, []string{"skip.log"}},
		{GrepQuery{Path: ".github"}, []string{".github/ci.yml"}},
		{GrepQuery{Path: "mid/old.go"}, []string{"mid/old.go"}},
	}
	for _, c := range cases {
		c.q.Output = OutputFiles
		if diff := cmp.Diff(c.want, grep(t, e, needle(c.q)).Files); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", c.q, diff)
		}
	}
}

func TestGrepRefusals(t *testing.T) {
	e, dir := grepFixtureEngine(t)
	outside := tempDir(t)
	os.Symlink(outside, filepath.Join(dir, "out"))
	if err := mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q   GrepQuery
		err error
	}{
		{GrepQuery{}, ErrEmptyQuery},
		{needle(GrepQuery{Path: "../x"}), files.ErrEscapes},
		{needle(GrepQuery{Path: outside}), files.ErrEscapes},
		{needle(GrepQuery{Path: "out"}), files.ErrEscapes},
		{needle(GrepQuery{Path: "nope"}), ErrNotFound},
		{needle(GrepQuery{Path: "fifo"}), ErrNotDir},
		{needle(GrepQuery{Glob: "{a,b"}), ErrBadGlob},
		{GrepQuery{Query: Query{Text: "(", Regex: true}}, ErrBadRegex},
	}
	for _, c := range cases {
		if _, err := e.Grep(context.Background(), c.q); !errors.Is(err, c.err) {
			t.Errorf("%+v: err %v, want %v", c.q, err, c.err)
		}
	}
}

// TestGrepNeverLeaves: symlinks inside the tree are not followed (not to
// a directory or file outside, not into a loop), FIFOs and devices are
// never opened (opening a FIFO would block), and files over the size
// limit are skipped and counted.
func TestGrepNeverLeaves(t *testing.T) {
	dir := tempDir(t)
	outside := tempDir(t)
	writeTree(t, outside, map[string]string{"secret.txt": "needle outside\n"})
	writeTree(t, dir, map[string]string{"in.txt": "needle inside\n", "big.txt": "needle " + string(make([]byte, 4096))})
	for name, target := range map[string]string{"dirlink": outside, "filelink": filepath.Join(outside, "secret.txt"), "loop": "loop", "self": "."} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(filepath.Join(dir, "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	devices := 0
	if mknodNull(filepath.Join(dir, "null.txt")) == nil {
		devices++
	}
	e := engineOn(t, dir, Options{MaxFileBytes: 1024})
	done := make(chan GrepResult, 1)
	go func() { done <- grep(t, e, GrepQuery{Query: Query{Text: "needle"}, Output: OutputFiles}) }()
	var r GrepResult
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("grep blocked (did it open the FIFO?)")
	}
	if diff := cmp.Diff([]string{"in.txt"}, r.Files); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if r.Stats.TooLarge != 1 || r.Stats.Searched != 1 {
		t.Errorf("stats %+v (devices made: %d)", r.Stats, devices)
	}
}

// TestGrepCancel: a cancelled grep over a large tree returns promptly
// with the context's error, and (TestMain) leaves no goroutine behind.
func TestGrepCancel(t *testing.T) {
	dir := tempDir(t)
	writeBig(t, dir, 400, 64<<10)
	e := engineOn(t, dir, Options{})
	for _, q := range []Query{{Text: `[A-Z]{4,}_[0-9]{3}`, Regex: true}, {Text: "needle"}} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := e.Grep(ctx, GrepQuery{Query: q})
			done <- err
		}()
		time.Sleep(5 * time.Millisecond)
		start := time.Now()
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v", err)
			}
			t.Logf("%q returned %v after the cancel", q.Text, time.Since(start))
		case <-time.After(10 * time.Second):
			t.Fatal("grep did not stop after cancel")
		}
	}
}

// TestGrepConcurrent: searches share an engine safely (run with -race).
func TestGrepConcurrent(t *testing.T) {
	e, _ := grepFixtureEngine(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := grep(t, e, needle(GrepQuery{})); r.MatchedLines != 5 {
				t.Errorf("matched %d", r.MatchedLines)
			}
		}()
	}
	wg.Wait()
}

// TestDefaultSetChangeable: the default set can be replaced or emptied,
// and a workspace's negation outranks it.
func TestDefaultSetChangeable(t *testing.T) {
	dir := tempDir(t)
	writeTree(t, dir, map[string]string{"node_modules/a.js": "x", "dist/b.js": "x", "vendor/c.js": "x", "src/d.js": "x"})
	cases := []struct {
		ignore    []string
		gitignore string
		want      []string
	}{
		{nil, "", []string{"src/d.js", "vendor/c.js"}},
		{[]string{"vendor/", " dist/ "}, "", []string{"node_modules/a.js", "src/d.js"}},
		{[]string{"-"}, "", []string{"dist/b.js", "node_modules/a.js", "src/d.js", "vendor/c.js"}},
		{nil, "!dist/\n", []string{"dist/b.js", "src/d.js", "vendor/c.js"}},
	}
	for _, c := range cases {
		os.WriteFile(filepath.Join(dir, ".ignore"), []byte(c.gitignore), 0o644)
		got := ourFilesOf(t, engineOn(t, dir, Options{Ignore: c.ignore}))
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("ignore %q, .ignore %q (-want +got):\n%s", c.ignore, c.gitignore, diff)
		}
	}
}

// TestGrepUnconfined: with confinement off (STEERABLE_WORKSPACE_CONFINE=0)
// a path outside the workspace is searched and named by absolute paths,
// with that directory's own ignore files applied.
func TestGrepUnconfined(t *testing.T) {
	dir, outside := tempDir(t), tempDir(t)
	writeTree(t, outside, map[string]string{"a.txt": "needle\n", "b.log": "needle\n", ".ignore": "*.log\n"})
	ws, err := files.Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	r := grep(t, New(ws, Options{}), GrepQuery{Query: Query{Text: "needle"}, Path: outside, Output: OutputFiles})
	if diff := cmp.Diff([]string{filepath.Join(outside, "a.txt")}, r.Files); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
