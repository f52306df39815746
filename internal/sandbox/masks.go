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
// Finding which of the sixty-odd paths exist costs a stat each, call after
// call, for an answer that almost never changes — yet may: the user or
// another program can create a credential store in the middle of a session
// (`aws configure`), and inside the workspace so can a command. So the
// masks of a deny list are computed once and reused while the directories
// that decide them are unchanged: for each denied path (or wildcard), its
// parent directory, or its nearest ancestor that exists. Creating,
// removing or renaming an entry in a directory changes its modification
// time; replacing the directory itself changes its identity.
//
// A denied path inside a writable root is masked over the root's bind,
// and every directory between the root and it is bound over itself: a
// mount point cannot be renamed or removed (EBUSY), so a command cannot
// move the credential store out from under its mask to a name the next
// call would not deny (`mv .config .c2`, then read .c2/gh).

// maskCache keeps the masks of recent deny lists (a session has one or
// two: the session's policy and run_code's share theirs).
type maskCache struct {
	mu      sync.Mutex
	entries []*maskSet // most recently used last
}

// maskSet is the masks of one deny list and what they depend on.
type maskSet struct {
	key string
	maskArgs
	watched []watchedDir
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

// get returns the mask arguments of deny under roots (see masksFor),
// shared: the caller copies them into its own argument list. A nil cache
// computes them every time.
func (c *maskCache) get(deny, roots []string) maskArgs {
	if c == nil {
		return masksFor(deny, roots)
	}
	key := strings.Join(deny, "\x00") + "\x01" + strings.Join(roots, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key != key {
			continue
		}
		c.entries = slices.Delete(c.entries, i, i+1)
		if e.settled && !e.changed() {
			c.entries = append(c.entries, e)
			return e.maskArgs
		}
		break
	}
	e := newMaskSet(key, deny, roots)
	if len(c.entries) == maskCacheSize {
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, e)
	return e.maskArgs
}

// newMaskSet reads the watched directories first, then the denied paths:
// a path created in between is masked now and its directory has changed,
// so the next call builds the set again.
func newMaskSet(key string, deny, roots []string) *maskSet {
	e := &maskSet{key: key, watched: watchedDirs(deny), settled: true}
	for _, w := range e.watched {
		if w.info == nil || time.Since(w.info.ModTime()) < mtimeSettle {
			e.settled = false
		}
	}
	e.maskArgs = masksFor(deny, roots)
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

// maskArgs are bwrap arguments in three places of its command line:
// before hide the denied paths outside the writable roots (and so come
// before the roots' binds, which re-expose a root inside a denied
// directory); after hide those inside a root (after the roots' binds,
// over them); remount makes the masking tmpfs read-only, last.
type maskArgs struct {
	before, after, remount []string
}

// masksFor hides each denied path that exists now (a wildcard: each
// match): a directory under an empty tmpfs (made read-only after the
// writable roots are bound), anything else under /dev/null (bound nodev,
// so opening it is refused). Inside a writable root, the directories
// between the root and the mask are bound over themselves first.
func masksFor(deny, roots []string) maskArgs {
	var m maskArgs
	var pinned []string
	for _, p := range expandPatterns(deny) {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		root := innermostRoot(roots, p)
		args := &m.before
		if root != "" {
			args = &m.after
			for _, a := range between(root, p) {
				if !slices.Contains(pinned, a) {
					pinned = append(pinned, a)
					*args = append(*args, "--bind", a, a)
				}
			}
		}
		if fi.IsDir() {
			*args = append(*args, "--tmpfs", p)
			m.remount = append(m.remount, "--remount-ro", p)
		} else {
			*args = append(*args, "--ro-bind", "/dev/null", p)
		}
	}
	return m
}

// expandPatterns replaces each wildcard entry of deny by the paths that
// match it now, sorted so that a directory comes before what lies below
// it (a mount or a profile has no wildcard).
func expandPatterns(deny []string) []string {
	var out []string
	for _, d := range deny {
		if IsDenyPattern(d) {
			matches, _ := filepath.Glob(d)
			out = append(out, matches...)
		} else {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// innermostRoot is the longest root strictly above p, "" when none.
func innermostRoot(roots []string, p string) string {
	best := ""
	for _, r := range roots {
		if (r == "/" || strings.HasPrefix(p, r+"/")) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// between are the directories strictly between root and p, top down.
func between(root, p string) []string {
	var out []string
	for d := filepath.Dir(p); d != root && len(d) > len(root); d = filepath.Dir(d) {
		out = append(out, d)
	}
	slices.Reverse(out)
	return out
}
