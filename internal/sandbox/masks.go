package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// bubblewrap masks only the denied paths that exist (a bind needs a
// target), and every mask costs it a mount and a read of its mountinfo.
// Finding which of the forty-odd paths exist costs a stat each, call after
// call, for an answer that almost never changes — yet may: the sandboxed
// command cannot create a denied path (it writes only below the writable
// roots, and a path inside one is never denied), but the user or another
// program can, in the middle of a session (`aws configure`). So the masks
// of a deny list are computed once and reused while the directories that
// decide them are unchanged: for each denied path, its parent directory,
// or its nearest ancestor that exists. Creating, removing or renaming an
// entry in a directory changes its modification time; replacing the
// directory itself changes its identity.

// maskCache keeps the masks of recent deny lists (a session has one or
// two: the session's policy and run_code's share theirs).
type maskCache struct {
	mu      sync.Mutex
	entries []*maskSet // most recently used last
}

// maskSet is the masks of one deny list and what they depend on.
type maskSet struct {
	key            string
	masks, remount []string
	watched        []watchedDir
	// settled: every watched directory was last modified more than
	// mtimeSettle before it was read, so a later change gets a later
	// time even where the file system's clock is coarse. An unsettled set
	// is used once and then built again.
	settled bool
}

type watchedDir struct {
	path string
	info os.FileInfo
}

const (
	maskCacheSize = 4
	mtimeSettle   = time.Second
)

// get returns the mask arguments of deny (see maskArgs), shared: the
// caller copies them into its own argument list. A nil cache computes
// them every time.
func (c *maskCache) get(deny []string) (masks, remount []string) {
	if c == nil {
		return maskArgs(deny)
	}
	key := strings.Join(deny, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key != key {
			continue
		}
		c.entries = slices.Delete(c.entries, i, i+1)
		if e.settled && !e.changed() {
			c.entries = append(c.entries, e)
			return e.masks, e.remount
		}
		break
	}
	e := newMaskSet(key, deny)
	if len(c.entries) == maskCacheSize {
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, e)
	return e.masks, e.remount
}

// newMaskSet reads the watched directories first, then the denied paths:
// a path created in between is masked now and its directory has changed,
// so the next call builds the set again.
func newMaskSet(key string, deny []string) *maskSet {
	e := &maskSet{key: key, watched: watchedDirs(deny), settled: true}
	for _, w := range e.watched {
		if w.info == nil || time.Since(w.info.ModTime()) < mtimeSettle {
			e.settled = false
		}
	}
	e.masks, e.remount = maskArgs(deny)
	return e
}

// watchedDirs are the directories whose entries decide whether the denied
// paths exist: the nearest existing ancestor of each one.
func watchedDirs(deny []string) []watchedDir {
	var parents []string
	for _, d := range deny {
		if p := filepath.Dir(d); !slices.Contains(parents, p) {
			parents = append(parents, p)
		}
	}
	var watched []watchedDir
	for _, p := range parents {
		w := nearestDir(p)
		if !slices.ContainsFunc(watched, func(x watchedDir) bool { return x.path == w.path }) {
			watched = append(watched, w)
		}
	}
	return watched
}

// nearestDir is dir, or its nearest ancestor, that is a directory.
func nearestDir(dir string) watchedDir {
	for {
		fi, err := os.Stat(dir)
		if err == nil && fi.IsDir() {
			return watchedDir{dir, fi}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return watchedDir{path: dir} // no root: never settles (changed)
		}
		dir = parent
	}
}

// changed reports whether a watched directory is gone, was replaced, or
// had an entry created, removed or renamed since the set was built.
func (e *maskSet) changed() bool {
	for _, w := range e.watched {
		fi, err := os.Stat(w.path)
		if err != nil || w.info == nil || !os.SameFile(fi, w.info) || !fi.ModTime().Equal(w.info.ModTime()) {
			return true
		}
	}
	return false
}

// maskArgs hides each denied path that exists now: a directory under an
// empty tmpfs (made read-only after the writable roots are bound, so a root
// inside it stays reachable), anything else under /dev/null (bound nodev,
// so opening it is refused).
func maskArgs(deny []string) (masks, remount []string) {
	for _, d := range deny {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.IsDir():
			masks = append(masks, "--tmpfs", d)
			remount = append(remount, "--remount-ro", d)
		default:
			masks = append(masks, "--ro-bind", "/dev/null", d)
		}
	}
	return masks, remount
}
