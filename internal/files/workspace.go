package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"unsafe"
)

// Errors of the file operations, tested with errors.Is.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
)

// Workspace is the directory tree the file tools act on. It is safe for
// concurrent use.
type Workspace struct {
	dir     string // absolute, symlinks resolved
	confine bool
	root    *os.Root // dir when confined, "/" otherwise

	// journal is this workspace's directory of rollback transactions
	// (journal.go); "" without a journal.
	journal string

	// deny is the credential stores no tool reads or writes (WithDeny),
	// built at its first use; nil: none.
	deny func() *Deny

	// rec hears of every committed change (WithRecorder); nil: nobody.
	rec Recorder

	// fail, set only by tests, injects a failure before a step of a write
	// ("stage", "journal", "rename", "remove", "commit", "cleanup") on the
	// named path.
	fail func(step, name string) error
}

// Option configures Open.
type Option func(*Workspace)

// WithJournal makes multi-file commits atomic across a crash with a
// rollback journal under root (the user's state directory, e.g.
// $XDG_STATE_HOME/steerable-sidecar/journal); each workspace gets its own
// directory there. Recover rolls back what a crash interrupted.
func WithJournal(root string) Option {
	return func(w *Workspace) { w.journal = journalDir(root, w.dir) }
}

// WithDeny makes Resolve refuse every path in a credential store of the
// list entries returns (the sandbox's deny list), inside the workspace or
// not. entries is called once, at the first path resolved: building the
// list stats every entry, which start-up need not wait for.
func WithDeny(entries func() []DenyEntry) Option {
	return func(w *Workspace) {
		w.deny = sync.OnceValue(func() *Deny { return NewDeny(entries()) })
	}
}

// Deny is the credential stores Resolve refuses (nil: none); a search
// skips them as it walks.
func (w *Workspace) Deny() *Deny {
	if w.deny == nil {
		return nil
	}
	return w.deny()
}

// WithFault calls fail before every step of a write ("stage", "journal",
// "rename", "remove", "commit", "cleanup") with the step and the file's
// name; an error fails the step ("cleanup" ignores it). It is the fault-injection seam of the end-to-end
// crash tests; nothing else sets it.
func WithFault(fail func(step, name string) error) Option {
	return func(w *Workspace) { w.fail = fail }
}

// Open opens the workspace at dir, which must be absolute with its symlinks
// resolved. confine refuses paths that resolve outside it.
func Open(dir string, confine bool, opts ...Option) (*Workspace, error) {
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		return nil, fmt.Errorf("workspace %q must be an absolute, clean path", dir)
	}
	rootDir := dir
	if !confine { // the file system's root; on Windows the workspace's volume
		rootDir = filepath.VolumeName(dir) + string(filepath.Separator)
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	w := &Workspace{dir: dir, confine: confine, root: root}
	for _, o := range opts {
		o(w)
	}
	return w, nil
}

// Journal is the directory of this workspace's rollback transactions, ""
// without a journal.
func (w *Workspace) Journal() string { return w.journal }

// Dir is the workspace root.
func (w *Workspace) Dir() string { return w.dir }

// Confined reports whether paths outside the workspace are refused.
func (w *Workspace) Confined() bool { return w.confine }

// Close releases the root's file descriptor.
func (w *Workspace) Close() error { return w.root.Close() }

// Rel is abs relative to the workspace when it lies inside, else abs: the
// name shown in diffs and messages.
func (w *Workspace) Rel(abs string) string {
	if rel, err := filepath.Rel(w.dir, abs); err == nil && Within(w.dir, abs) {
		return rel
	}
	return abs
}

// name is abs as a name for the os.Root.
func (w *Workspace) name(abs string) string {
	rel, err := filepath.Rel(w.root.Name(), abs)
	if err != nil {
		return abs // not below the root: os.Root refuses it
	}
	return rel
}

// Lstat describes the file at the resolved path abs without following a
// final symlink.
func (w *Workspace) Lstat(abs string) (fs.FileInfo, error) {
	return w.root.Lstat(w.name(abs))
}

// OpenRoot opens the directory at the resolved path abs as an os.Root of
// its own, for walks (grep, glob) that open every entry by a single name
// relative to its directory: nothing opened through it can leave it.
func (w *Workspace) OpenRoot(abs string) (*os.Root, error) {
	return w.root.OpenRoot(w.name(abs))
}

// OpenRead opens the regular file at the resolved path abs for reading. A
// FIFO, device or socket is refused without blocking; so is a symlink
// swapped in since the path was resolved.
func (w *Workspace) OpenRead(abs string) (*os.File, fs.FileInfo, error) {
	f, err := w.root.OpenFile(w.name(abs), readFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = notRegular(abs, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadFile reads the regular file at abs whole, refusing one over max
// bytes. The content is returned as a string over the one buffer it was
// read into (sized from the stat), so loading a file costs its size once.
func (w *Workspace) ReadFile(abs string, max int64) (string, fs.FileInfo, error) {
	f, fi, err := w.OpenRead(abs)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return "", nil, tooLarge(abs, fi.Size(), max)
	}
	b, err := readAll(f, fi.Size(), int(max))
	if err == nil && int64(len(b)) > max {
		err = tooLarge(abs, int64(len(b)), max)
	}
	if err != nil {
		return "", nil, err
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), fi, nil // b is not used again
}

func notRegular(abs string, fi fs.FileInfo) error {
	if fi.IsDir() {
		return fmt.Errorf("%w: %s is a directory; list it with bash (ls) and pass a file path", ErrNotRegular, abs)
	}
	return fmt.Errorf("%w: %s is a %s, not a regular file; use bash to inspect it", ErrNotRegular, abs, kind(fi.Mode()))
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

func tooLarge(abs string, size, max int64) error {
	return fmt.Errorf("%w: %s is %d bytes, over the %d-byte limit of STEERABLE_FILE_MAX_BYTES; change it with bash (sed, a script) or raise the limit", ErrTooLarge, abs, size, max)
}

// readAll reads f to its end into a buffer sized from its stat (a file may
// still grow; reading stops past max bytes, which the caller refuses).
func readAll(f io.Reader, size int64, max int) ([]byte, error) {
	b := make([]byte, 0, min(size, int64(max))+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return nil, err
		case len(b) > max:
			return b, nil
		case len(b) == cap(b):
			b = append(b, 0)[:len(b)] // grow
		}
	}
}
