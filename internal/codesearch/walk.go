package codesearch

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	"steerable.dev/sidecar/internal/files"
)

// A walk lists one tree on every core. Directories and (for grep) files are
// jobs on one shared LIFO stack: depth first keeps the number of open
// directories small, and any idle worker takes the next job, so one huge
// directory or one deep subtree does not leave a core idle.
//
// Every directory is opened below its parent's os.Root by a single
// component name, and entries are classified by the type the directory
// listing reports: a symlink found is never followed, a FIFO, socket or
// device never opened. An entry swapped for a symlink after the listing
// is followed at most within its parent's Root, which refuses anything
// that would lead out: the walk cannot leave the directory it started in,
// whatever another process renames or swaps underneath it.
//
// A credential store (files.Deny) is skipped like an ignored entry and
// counted (Stats.Denied): its directory is never entered, its files never
// opened, so neither its names nor its contents reach a result. Only the
// directories a store lies below are looked up entry by entry.

// walkSpec is what one walk needs.
type walkSpec struct {
	top      *dirNode // the directory the walk starts in, its ignore chain loaded
	root     *os.Root // opened on top
	abs      string   // top's absolute path, symlinks resolved
	deny     *files.Deny
	defaults *ruleSet
	sel      selector
	// fileJobs hands each file to a worker of its own (grep); without it
	// files are visited by the worker that lists their directory (glob).
	fileJobs   bool
	newVisitor func() visitor
}

// visitor handles the files a walk selects. Each worker has its own, so a
// visitor needs no locking of its own state.
type visitor interface {
	visit(ctx context.Context, f fileRef)
}

// fileRef is a selected regular file: its directory (open for the duration
// of the visit) and its name there.
type fileRef struct {
	dir  *os.Root
	name string
	rel  string // from the chain's top
}

// walkDir is an open directory with the jobs that still need its root.
type walkDir struct {
	node *dirNode
	root *os.Root
	refs atomic.Int32
	// abs is the directory's absolute path when a credential store lies
	// below it (files.Deny.Holds), else "": only then are its entries
	// looked up in the deny list.
	abs string
}

func (d *walkDir) release() {
	if d.refs.Add(-1) == 0 {
		d.root.Close()
	}
}

type job struct {
	dir   *walkDir // the directory holding the entry
	name  string
	isDir bool
}

// walker is the shared state of one walk.
type walker struct {
	spec    walkSpec
	ctx     context.Context
	stats   *counters
	mu      sync.Mutex
	cond    *sync.Cond
	stack   []job
	pending int // jobs on the stack or running
	stopped bool
}

// walk runs spec until every job is done or ctx ends; it returns ctx's
// error in the second case. The caller keeps ownership of spec.root.
func walk(ctx context.Context, spec walkSpec, stats *counters) error {
	w := &walker{spec: spec, ctx: ctx, stats: stats}
	w.cond = sync.NewCond(&w.mu)
	top := &walkDir{node: spec.top, root: spec.root, abs: holding(spec.deny, spec.abs)}
	top.refs.Store(2) // the caller's reference, never released here
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.stopped = true
		w.mu.Unlock()
		w.cond.Broadcast()
	})
	defer stop()
	w.pending = 1
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := spec.newVisitor()
			if i == 0 {
				w.listDir(top, v)
				w.done()
			}
			w.work(v)
		}()
	}
	wg.Wait()
	for _, j := range w.stack { // left by a cancelled walk
		j.dir.release()
	}
	return ctx.Err()
}

// work runs jobs until the walk is finished or stopped. Between jobs a
// worker yields: the workers keep every core busy, so the goroutine that
// reads the host's frames (a $/cancelRequest) becomes runnable only when
// the runtime's monitor polls the network (every 10 ms), and would then
// wait for a worker's time slice to end too (another 10 ms).
func (w *walker) work(v visitor) {
	for {
		runtime.Gosched()
		j, ok := w.next()
		if !ok {
			return
		}
		if j.isDir {
			w.enterDir(j, v)
		} else {
			v.visit(w.ctx, fileRef{dir: j.dir.root, name: j.name, rel: joinRel(j.dir.node.rel, j.name)})
		}
		j.dir.release()
		w.done()
	}
}

// next pops a job, waiting while others are running; ok is false when
// the walk is over.
func (w *walker) next() (job, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.stack) == 0 && w.pending > 0 && !w.stopped {
		w.cond.Wait()
	}
	if w.stopped || len(w.stack) == 0 {
		return job{}, false
	}
	j := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	return j, true
}

func (w *walker) push(jobs []job) {
	if len(jobs) == 0 {
		return
	}
	w.mu.Lock()
	w.stack = append(w.stack, jobs...)
	w.pending += len(jobs)
	w.mu.Unlock()
	if len(jobs) == 1 {
		w.cond.Signal()
	} else {
		w.cond.Broadcast()
	}
}

func (w *walker) done() {
	w.mu.Lock()
	w.pending--
	last := w.pending == 0
	w.mu.Unlock()
	if last {
		w.cond.Broadcast()
	}
}

// enterDir opens the directory of a job and lists it.
func (w *walker) enterDir(j job, v visitor) {
	root, err := j.dir.root.OpenRoot(j.name)
	if err != nil {
		w.stats.unreadable.Add(1)
		return
	}
	d := &walkDir{root: root, node: &dirNode{parent: j.dir.node, rel: joinRel(j.dir.node.rel, j.name)}}
	if j.dir.abs != "" {
		d.abs = holding(w.spec.deny, filepath.Join(j.dir.abs, j.name))
	}
	d.refs.Store(1)
	w.listDir(d, v)
	d.release()
}

// openList opens the directory of root for listing.
func (w *walker) openList(root *os.Root) (*os.File, error) {
	dir, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	f, err := listable(dir)
	if f != dir {
		dir.Close()
	}
	return f, err
}

// batch is how many entries are read at a time; a directory that fits in
// one batch is listed in one pass, a larger one is streamed.
const batch = 1024

// listDir reads d's ignore files and entries and queues what is selected.
// d.node is complete for the top and carries only parent and rel for the
// others; the ignore files are read here.
func (w *walker) listDir(d *walkDir, v visitor) {
	f, err := w.openList(d.root)
	if err != nil {
		w.stats.unreadable.Add(1)
		return
	}
	defer f.Close()
	entries, err := f.ReadDir(batch)
	if err != nil && !errors.Is(err, io.EOF) {
		w.stats.unreadable.Add(1)
		return
	}
	if d.node != w.spec.top {
		d.node.load(loadIgnoreFiles(d.root, entries, len(entries) == batch), false)
	}
	for len(entries) > 0 && w.ctx.Err() == nil {
		w.push(w.route(d, entries, v))
		if len(entries) < batch {
			return
		}
		entries, err = f.ReadDir(batch)
		if err != nil && !errors.Is(err, io.EOF) {
			w.stats.unreadable.Add(1)
			return
		}
	}
}

// route classifies one batch of d's entries: directories and (with
// fileJobs) files become jobs; files are otherwise visited here.
func (w *walker) route(d *walkDir, entries []fs.DirEntry, v visitor) []job {
	var jobs []job
	for _, e := range entries {
		typ := e.Type()
		isDir := typ.IsDir()
		if !isDir && !typ.IsRegular() {
			continue // symlinks are not followed; FIFOs, sockets, devices never opened
		}
		name := e.Name()
		rel := joinRel(d.node.rel, name)
		if !w.admit(d.node, rel, name, isDir) {
			continue
		}
		if d.abs != "" {
			if _, denied := w.spec.deny.Match(filepath.Join(d.abs, name)); denied {
				w.stats.denied.Add(1) // never entered, never listed
				continue
			}
		}
		switch {
		case isDir:
			jobs = append(jobs, job{dir: d, name: name, isDir: true})
			d.refs.Add(1)
		case w.spec.fileJobs:
			jobs = append(jobs, job{dir: d, name: name})
			d.refs.Add(1)
		default:
			v.visit(w.ctx, fileRef{dir: d.root, name: name, rel: rel})
		}
	}
	return jobs
}

// admit applies the ignore rules, the hidden rule and the selector to one
// entry.
func (w *walker) admit(dir *dirNode, rel, name string, isDir bool) bool {
	v := judge(dir, rel, name, isDir, w.spec.defaults)
	if v == ignored {
		return false
	}
	fromTop := relTo(w.spec.top.rel, rel)
	if v != whitelisted && isHidden(name) && !w.spec.sel.namesHidden(name) {
		return false
	}
	if isDir {
		return w.spec.sel.mayEnter(fromTop)
	}
	return w.spec.sel.matches(fromTop, name)
}

// holding is dir when a credential store lies below it, else "".
func holding(deny *files.Deny, dir string) string {
	if deny.Holds(dir) {
		return dir
	}
	return ""
}

// loadIgnoreFiles reads the ignore files of the directory open at root.
// entries is its listing when complete; with partial, names are probed.
func loadIgnoreFiles(root *os.Root, entries []fs.DirEntry, partial bool) ignoreFiles {
	var files ignoreFiles
	gitIsDir := false
	has := func(name string) (bool, bool) {
		if partial {
			fi, err := root.Lstat(name)
			return err == nil, err == nil && fi.IsDir()
		}
		for _, e := range entries {
			if e.Name() == name {
				return true, e.IsDir()
			}
		}
		return false, false
	}
	if ok, _ := has(".ignore"); ok {
		files.ignore = readIgnore(root, ".ignore")
	}
	if ok, _ := has(".gitignore"); ok {
		files.gitignore = readIgnore(root, ".gitignore")
	}
	files.hasGit, gitIsDir = has(".git")
	if gitIsDir {
		files.exclude = readIgnore(root, ".git/info/exclude")
	}
	return files
}

// readIgnore reads and parses one ignore file below root; a missing or
// unreadable one, or one that is not a regular file, has no rules.
func readIgnore(root *os.Root, name string) *ruleSet {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
	if err != nil {
		return nil
	}
	return parseIgnore(b)
}
