package codesearch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Output is what grep returns for its matches.
type Output string

const (
	OutputHits  Output = "hits"  // matching lines with their text
	OutputFiles Output = "files" // paths of files with a match
	OutputCount Output = "count" // per-file counts of matching lines
)

// GrepQuery is one grep call.
type GrepQuery struct {
	Query
	Path    string // file or directory to search; "" is the workspace
	Glob    string // file filter (see fileFilter); "" selects every file
	Context int    // lines before and after each hit, 0..MaxContext
	Output  Output // "" is OutputHits
	Limit   int    // results kept; 0 is DefaultLimit, at most MaxLimit
}

// Hit is one matching line.
type Hit struct {
	Path   string   `json:"path"`
	Line   int      `json:"line"`
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// FileCount is the number of matching lines of one file.
type FileCount struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// GrepResult is the outcome of a grep; one of Hits, Files and Counts is
// set, by Output. Every list is ordered by modification time, newest
// first, then by path (hits of one file by line).
type GrepResult struct {
	Hits         []Hit
	Files        []string
	Counts       []FileCount
	Truncated    bool // the limit cut the list
	MatchedFiles int  // files with at least one match
	MatchedLines int  // matching lines in all files (not counted for OutputFiles)
	Stats        Stats
}

// Grep searches file contents. Bad input is an error whose message says
// how to fix it; a cancelled ctx returns ctx's error.
func (e *Engine) Grep(ctx context.Context, q GrepQuery) (GrepResult, error) {
	m, err := compile(q.Query)
	if err != nil {
		return GrepResult{}, err
	}
	var sel selector
	if q.Glob != "" {
		if sel, err = fileFilter(q.Glob); err != nil {
			return GrepResult{}, err
		}
	}
	t, err := e.locate(q.Path)
	if err != nil {
		return GrepResult{}, err
	}
	out := q.Output
	if out == "" {
		out = OutputHits
	}
	g := &grepRun{e: e, t: t, m: m, context: min(max(q.Context, 0), MaxContext), c: newCollector(out, e.limit(q.Limit))}
	if t.isFile {
		g.searchFile(ctx)
	} else if err := g.walk(ctx, sel); err != nil {
		return GrepResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return GrepResult{}, err
	}
	return g.c.result(g.st.stats()), nil
}

// grepRun is one grep in progress.
type grepRun struct {
	e       *Engine
	t       tree
	m       *matcher
	context int
	c       *collector
	st      counters
}

func (g *grepRun) visitor() *grepVisitor {
	return &grepVisitor{grepRun: g, sc: &scanner{m: g.m, mode: g.c.mode, context: g.context}}
}

// searchFile searches the one file the path names: ignore rules do not
// apply to it (the model named it), the binary and size checks do.
func (g *grepRun) searchFile(ctx context.Context) {
	rel, _ := filepath.Rel(g.t.chainAbs, g.t.abs)
	g.visitor().search(ctx, filepath.ToSlash(rel), func() (*os.File, error) {
		f, _, err := g.e.ws.OpenRead(g.t.abs)
		return f, err
	})
}

func (g *grepRun) walk(ctx context.Context, sel selector) error {
	root, err := g.e.ws.OpenRoot(g.t.abs)
	if err != nil {
		return fmt.Errorf("%s: %w", g.e.ws.Rel(g.t.abs), err)
	}
	defer root.Close()
	return walk(ctx, walkSpec{top: g.t.top, root: root, abs: g.t.abs, deny: g.e.ws.Deny(), defaults: g.e.defaults, sel: sel, fileJobs: true,
		newVisitor: func() visitor { return g.visitor() }}, &g.st)
}

// grepVisitor searches the files of one worker.
type grepVisitor struct {
	*grepRun
	sc *scanner
}

func (v *grepVisitor) visit(ctx context.Context, f fileRef) {
	v.search(ctx, f.rel, func() (*os.File, error) {
		return f.dir.OpenFile(f.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	})
}

// search opens one file (O_NONBLOCK: a FIFO swapped in cannot block),
// skips what is not a regular file, too large or binary, and hands its
// matches to the collector.
func (v *grepVisitor) search(ctx context.Context, rel string, open func() (*os.File, error)) {
	f, err := open()
	if err != nil {
		v.st.unreadable.Add(1)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		v.st.unreadable.Add(1)
		return
	case !fi.Mode().IsRegular():
		return
	case fi.Size() > v.e.maxFileBytes:
		v.st.tooLarge.Add(1)
		return
	}
	key := fileKey{mtime: fi.ModTime(), path: v.e.outPath(v.t, rel)}
	res, binary, err := v.sc.scan(ctx, f, fi.Size(), v.c.keepFor(key))
	switch {
	case binary:
		v.st.binary.Add(1)
	case err != nil && ctx.Err() == nil:
		v.st.unreadable.Add(1)
	case err == nil:
		v.st.searched.Add(1)
		if res.count > 0 {
			v.c.add(key, res)
		}
	}
}

// collector keeps the best results of all workers.
type collector struct {
	mode  mode
	limit int
	mu    sync.Mutex
	hits  *topK[rankedHit]
	files *topK[rankedFile]
	nFile int
	nLine int
}

type rankedFile struct {
	key   fileKey
	count int
}

type rankedHit struct {
	key fileKey
	hit Hit
}

func (a rankedHit) before(b rankedHit) bool {
	if a.key != b.key {
		return a.key.before(b.key)
	}
	return a.hit.Line < b.hit.Line
}

func newCollector(out Output, limit int) *collector {
	c := &collector{limit: limit}
	switch out {
	case OutputFiles:
		c.mode = modeFiles
	case OutputCount:
		c.mode = modeCount
	default:
		c.mode = modeHits
	}
	c.hits = newTopK(limit, rankedHit.before)
	c.files = newTopK(limit, func(a, b rankedFile) bool { return a.key.before(b.key) })
	return c
}

// keepFor is how many hit texts a file of rank key is worth keeping.
func (c *collector) keepFor(key fileKey) int {
	if c.mode != modeHits {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hits.wouldKeep(rankedHit{key: key}) {
		return c.limit
	}
	return 0
}

func (c *collector) add(key fileKey, res fileResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nFile++
	c.nLine += res.count
	if c.mode == modeHits {
		for _, h := range res.hits {
			h.Path = key.path
			if !c.hits.push(rankedHit{key: key, hit: h}) {
				break // later lines of the file rank lower still
			}
		}
		return
	}
	c.files.push(rankedFile{key: key, count: res.count})
}

func (c *collector) result(st Stats) GrepResult {
	r := GrepResult{MatchedFiles: c.nFile, MatchedLines: c.nLine, Stats: st}
	switch c.mode {
	case modeHits:
		for _, h := range c.hits.sorted() {
			r.Hits = append(r.Hits, h.hit)
		}
		r.Truncated = c.nLine > len(r.Hits)
	case modeFiles:
		for _, f := range c.files.sorted() {
			r.Files = append(r.Files, f.key.path)
		}
		r.MatchedLines = 0
		r.Truncated = c.nFile > len(r.Files)
	case modeCount:
		for _, f := range c.files.sorted() {
			r.Counts = append(r.Counts, FileCount{Path: f.key.path, Count: f.count})
		}
		r.Truncated = c.nFile > len(r.Counts)
	}
	return r
}
