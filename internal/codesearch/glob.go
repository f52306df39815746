package codesearch

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// GlobQuery is one glob call.
type GlobQuery struct {
	Pattern string // doublestar syntax, relative to Path
	Path    string // directory the pattern starts in; "" is the workspace
	Limit   int    // files kept; 0 is DefaultLimit, at most MaxLimit
}

// GlobResult lists matching files, newest first, then by path.
type GlobResult struct {
	Files     []string
	Truncated bool
	Matched   int    // files that match, listed or not
	Missing   string // the pattern's directory, when it does not exist
	TooLarge  int    // matching files skipped for being over MaxFileBytes
	Denied    int    // credential stores skipped (files.Deny), never listed
}

// Glob lists the files under q.Path whose path from there matches
// q.Pattern. The pattern's literal leading directories ("src/" in
// "src/**/*.go") are where the walk starts, so naming an ignored or hidden
// directory there searches it.
func (e *Engine) Glob(ctx context.Context, q GlobQuery) (GlobResult, error) {
	base, rest := splitGlob(q.Pattern)
	g, err := parseGlob(rest)
	if err != nil {
		return GlobResult{}, err
	}
	dir := q.Path
	switch {
	case base == "":
	case dir == "" || path.IsAbs(base):
		dir = base
	default:
		dir = dir + "/" + base
	}
	t, err := e.locate(dir)
	switch {
	case errors.Is(err, ErrNotFound) && base != "":
		return GlobResult{Missing: dir}, nil
	case err != nil:
		return GlobResult{}, err
	case t.isFile:
		return GlobResult{}, fmt.Errorf("%w: %s is a file; pass a directory as path, or use the file's name in the pattern", ErrNotDir, e.ws.Rel(t.abs))
	}
	root, err := e.ws.OpenRoot(t.abs)
	if err != nil {
		return GlobResult{}, fmt.Errorf("%s: %w", e.ws.Rel(t.abs), err)
	}
	defer root.Close()
	c := &globCollector{top: newTopK(e.limit(q.Limit), fileKey.before)}
	sel := selector{match: func(fromTop, _ string) bool { return g.match(fromTop) }, enter: g.mayHold, hidden: g.hiddenSegments()}
	var st counters
	err = walk(ctx, walkSpec{top: t.top, root: root, abs: t.abs, deny: e.ws.Deny(), defaults: e.defaults, sel: sel,
		newVisitor: func() visitor { return &globVisitor{e: e, t: t, c: c, st: &st} }}, &st)
	if err != nil {
		return GlobResult{}, err
	}
	r := GlobResult{Matched: c.n, TooLarge: int(st.tooLarge.Load()), Denied: int(st.denied.Load())}
	for _, k := range c.top.sorted() {
		r.Files = append(r.Files, k.path)
	}
	r.Truncated = c.n > len(r.Files)
	return r, nil
}

// splitGlob splits off the pattern's leading directories without
// wildcards ("src/" in "src/**/*.go"); a base with escapes stays in the
// pattern.
func splitGlob(p string) (base, rest string) {
	base, rest = doublestar.SplitPattern(p)
	if base == "." || strings.Contains(base, `\`) {
		return "", p
	}
	return base, rest
}

type globCollector struct {
	mu  sync.Mutex
	top *topK[fileKey]
	n   int
}

type globVisitor struct {
	e  *Engine
	t  tree
	c  *globCollector
	st *counters
}

// visit stats a matching file (without following it) for its
// modification time; the same stat gives its size, so a file over
// MaxFileBytes is skipped and counted as grep skips it, at no extra cost.
func (v *globVisitor) visit(_ context.Context, f fileRef) {
	fi, err := f.dir.Lstat(f.name)
	switch {
	case err != nil || !fi.Mode().IsRegular():
		return
	case fi.Size() > v.e.maxFileBytes:
		v.st.tooLarge.Add(1)
		return
	}
	v.st.searched.Add(1)
	key := fileKey{mtime: fi.ModTime(), path: v.e.outPath(v.t, f.rel)}
	v.c.mu.Lock()
	v.c.n++
	v.c.top.push(key)
	v.c.mu.Unlock()
}
