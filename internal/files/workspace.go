package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
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

	// fail, set only by tests, injects a failure before a step of a write
	// ("stage", "rename", "remove") on the named path.
	fail func(step, name string) error
}

// Open opens the workspace at dir, which must be absolute with its symlinks
// resolved. confine refuses paths that resolve outside it.
func Open(dir string, confine bool) (*Workspace, error) {
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		return nil, fmt.Errorf("workspace %q must be an absolute, clean path", dir)
	}
	rootDir := dir
	if !confine {
		rootDir = string(filepath.Separator)
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	return &Workspace{dir: dir, confine: confine, root: root}, nil
}

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
	f, err := w.root.OpenFile(w.name(abs), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
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
// bytes.
func (w *Workspace) ReadFile(abs string, max int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := w.OpenRead(abs)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, nil, tooLarge(abs, fi.Size(), max)
	}
	b, err := readAll(f, fi.Size(), max)
	if err == nil && int64(len(b)) > max {
		err = tooLarge(abs, int64(len(b)), max)
	}
	if err != nil {
		return nil, nil, err
	}
	return b, fi, nil
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
// still grow, up to max+1 bytes, which the caller refuses).
func readAll(f io.Reader, size, max int64) ([]byte, error) {
	b := make([]byte, 0, min(size, max)+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return nil, err
		case int64(len(b)) > max:
			return b, nil
		case len(b) == cap(b):
			b = append(b, 0)[:len(b)] // grow
		}
	}
}
