package codesearch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"steerable.dev/sidecar/internal/files"
)

// Errors of a search's path, tested with errors.Is (the resolver's own,
// files.ErrEscapes and files.ErrInvalidPath, pass through).
var (
	ErrNotFound = errors.New("no such file or directory")
	ErrNotDir   = errors.New("not a directory")
)

// DefaultIgnore is the default set (STEERABLE_SEARCH_IGNORE): directories
// that are never source, skipped like the lowest-ranking ignore file.
var DefaultIgnore = []string{".git/", "node_modules/", "__pycache__/", ".venv/", "venv/", "dist/", "build/", "target/"}

// Limits of a result.
const (
	DefaultLimit = 200
	MaxLimit     = 1000
	MaxContext   = 10
)

// defaultMaxFileBytes is STEERABLE_FILE_MAX_BYTES's default, for an
// Engine configured without a limit.
const defaultMaxFileBytes = 64 << 20

// Options configure an Engine.
type Options struct {
	// MaxFileBytes: grep and glob skip (and count) larger files; 0 is
	// 64 MiB.
	MaxFileBytes int64
	// Ignore is the default set, gitignore patterns relative to the
	// workspace root; nil means DefaultIgnore and the one entry "-" an
	// empty set.
	Ignore []string
}

// Engine searches one workspace. It is safe for concurrent use; each
// search is independent.
type Engine struct {
	ws           *files.Workspace
	maxFileBytes int64
	defaults     *ruleSet
	maxLimit     int // MaxLimit; tests raise it to compare whole listings
}

// New returns the engine for ws.
func New(ws *files.Workspace, o Options) *Engine {
	ignore := o.Ignore
	if ignore == nil {
		ignore = DefaultIgnore
	}
	var lines []string
	for _, p := range ignore {
		if p = strings.TrimSpace(p); p != "" {
			lines = append(lines, p)
		}
	}
	if len(lines) == 1 && lines[0] == "-" {
		lines = nil
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = defaultMaxFileBytes
	}
	return &Engine{ws: ws, maxFileBytes: o.MaxFileBytes, defaults: parseIgnore([]byte(strings.Join(lines, "\n"))), maxLimit: MaxLimit}
}

// Stats count what a search looked at and what it skipped.
type Stats struct {
	Searched   int `json:"searched"`   // files whose text was searched (grep) or that matched (glob)
	Binary     int `json:"binary"`     // skipped: a NUL byte in the first 8 KiB
	TooLarge   int `json:"tooLarge"`   // skipped: over MaxFileBytes (grep and glob)
	Unreadable int `json:"unreadable"` // skipped: could not be opened or read
	Denied     int `json:"denied"`     // skipped: a credential store (files.Deny)
}

// counters are Stats as the workers update them.
type counters struct {
	searched, binary, tooLarge, unreadable, denied atomic.Int64
}

func (c *counters) stats() Stats {
	return Stats{Searched: int(c.searched.Load()), Binary: int(c.binary.Load()), TooLarge: int(c.tooLarge.Load()), Unreadable: int(c.unreadable.Load()),
		Denied: int(c.denied.Load())}
}

// tree is where a search starts and the ignore chain above it.
type tree struct {
	abs      string // the resolved directory or file
	isFile   bool
	chainAbs string   // top of the ignore chain: the workspace root, or the directory itself outside it
	top      *dirNode // the directory searched (a file's directory)
}

// locate resolves path (relative to the workspace, or absolute) with the
// file tools' resolver and loads the ignore files from the workspace root
// down to it. The ignore rules judge what lies below it, never the path
// itself: a path the model names is searched even if it is ignored.
func (e *Engine) locate(path string) (tree, error) {
	if path == "" {
		path = "."
	}
	abs, err := e.ws.Resolve(path)
	if err != nil {
		return tree{}, err
	}
	fi, err := e.ws.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tree{}, fmt.Errorf("%w: %s does not exist; check the path", ErrNotFound, e.ws.Rel(abs))
	case err != nil:
		return tree{}, err
	case !fi.IsDir() && !fi.Mode().IsRegular():
		return tree{}, fmt.Errorf("%w: %s is not a directory or a regular file", ErrNotDir, e.ws.Rel(abs))
	}
	t := tree{abs: abs, isFile: !fi.IsDir(), chainAbs: e.ws.Dir()}
	dir := abs
	if t.isFile {
		dir = filepath.Dir(abs)
	}
	if !files.Within(t.chainAbs, dir) {
		t.chainAbs = dir
	}
	t.top, err = e.chain(t.chainAbs, dir)
	return t, err
}

// chain builds the dirNodes from top down to dir, reading each one's
// ignore files.
func (e *Engine) chain(top, dir string) (*dirNode, error) {
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return nil, err
	}
	node, err := e.load(nil, top, "", repoAbove(top))
	if err != nil || rel == "." {
		return node, err
	}
	cur, curRel := top, ""
	for _, c := range strings.Split(filepath.ToSlash(rel), "/") {
		cur, curRel = filepath.Join(cur, c), joinRel(curRel, c)
		if node, err = e.load(node, cur, curRel, false); err != nil {
			return nil, err
		}
	}
	return node, nil
}

// load reads the ignore files of the directory abs into a node below
// parent.
func (e *Engine) load(parent *dirNode, abs, rel string, gitAbove bool) (*dirNode, error) {
	root, err := e.ws.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.ws.Rel(abs), err)
	}
	defer root.Close()
	return newDirNode(parent, rel, loadIgnoreFiles(root, nil, true), gitAbove), nil
}

// repoAbove reports whether a directory above dir holds a .git entry, so
// that dir lies in a repository whose root is outside the walk. Only that
// entry's existence is looked at, never its content.
func repoAbove(dir string) bool {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// outPath is how a result names the file at rel (from the chain's top):
// relative to the workspace when inside it, absolute otherwise.
func (e *Engine) outPath(t tree, rel string) string {
	if t.chainAbs == e.ws.Dir() {
		return rel
	}
	return filepath.Join(t.chainAbs, filepath.FromSlash(rel))
}

// limit applies the default and the ceiling.
func (e *Engine) limit(n int) int {
	if n <= 0 {
		return DefaultLimit
	}
	return min(n, e.maxLimit)
}
