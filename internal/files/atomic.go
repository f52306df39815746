package files

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// DefaultMode is the mode of a file the tools create.
const DefaultMode fs.FileMode = 0o644

// KeptModeBits are the bits of an existing file's mode that a rewrite keeps.
const KeptModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// WriteFile replaces the file at the resolved path abs with data,
// atomically (doc.go): a crash leaves the old content or the new. An
// existing file keeps its mode and, where the process may, its owner; a new
// file gets DefaultMode and its missing parent directories. created reports
// that no file was there.
func (w *Workspace) WriteFile(abs, data string) (created bool, err error) {
	return w.WriteFileAs(Origin{}, abs, data, nil)
}

// WriteFileAs is WriteFile for the call o; the recorder, if any, hears of
// the change. prev is the file's current content when the caller holds it
// (else the recorder's copy is read before the rename).
func (w *Workspace) WriteFileAs(o Origin, abs, data string, prev *string) (created bool, err error) {
	if err := w.step("stage", w.name(abs)); err != nil {
		return false, err
	}
	st, err := w.stage(abs, data, 0)
	if err != nil {
		return false, err
	}
	if err := w.step("rename", st.name); err != nil {
		st.abort(w)
		return false, err
	}
	var before Side
	if w.rec != nil && !st.created {
		before = w.sideOf(abs, prev, st.prevMode)
	}
	if err := w.replace(st.tmp, st.name); err != nil {
		st.abort(w)
		return false, fmt.Errorf("replacing %s: %w", abs, err)
	}
	w.syncDir(filepath.Dir(st.name))
	if w.rec != nil {
		w.rec.Record(o, []Written{{Path: abs, Before: before, After: w.after(data, st.mode)}})
	}
	return st.created, nil
}

// staged is a new content written to a temporary file beside its target.
type staged struct {
	name     string      // target, as a root name
	tmp      string      // temporary file, as a root name
	created  bool        // the target did not exist
	madeDir  string      // the topmost parent directory created for it, "" if none
	mode     fs.FileMode // the mode the temporary file got
	prevMode fs.FileMode // the target's kept mode bits, unless created
}

// stage writes data to a fsynced temporary file beside abs with the mode
// the result must have: mode if non-zero, else the existing file's, else
// DefaultMode.
func (w *Workspace) stage(abs, data string, mode fs.FileMode) (*staged, error) {
	st := &staged{name: w.name(abs)}
	uid, gid := -1, -1
	fi, err := w.root.Lstat(st.name)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return nil, notRegular(abs, fi)
	case err == nil:
		st.prevMode = fi.Mode() & KeptModeBits
		if mode == 0 {
			mode = fi.Mode() & KeptModeBits
		}
		if u, g, ok := fileOwner(fi); ok && (u != os.Geteuid() || g != os.Getegid()) {
			uid, gid = u, g
		}
	case errors.Is(err, fs.ErrNotExist):
		st.created = true
		if st.madeDir, err = w.mkdirs(filepath.Dir(st.name)); err != nil {
			st.abort(w)
			return nil, fmt.Errorf("creating the parent directories of %s: %w", abs, err)
		}
	default:
		return nil, err
	}
	if mode == 0 {
		mode = DefaultMode
	}
	st.mode = mode
	if err := w.writeTemp(st, data, mode, uid, gid); err != nil {
		st.abort(w)
		return nil, fmt.Errorf("writing %s: %w", abs, err)
	}
	return st, nil
}

// writeTemp creates st.tmp exclusively and fills it. The mode is set on the
// descriptor, so the umask does not change it.
func (w *Workspace) writeTemp(st *staged, data string, mode fs.FileMode, uid, gid int) error {
	dir, base := filepath.Split(st.name)
	var f *os.File
	var err error
	for range 10 {
		st.tmp = filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err = w.root.OpenFile(st.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		st.tmp = ""
		return err
	}
	_, err = f.WriteString(data) // no copy of data
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil && uid >= 0 {
		_ = f.Chown(uid, gid) // best effort: only a privileged process may give a file away
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// abort removes what stage left behind: the temporary file and the
// directories it created.
func (st *staged) abort(w *Workspace) {
	if st.tmp != "" {
		_ = w.root.Remove(st.tmp)
	}
	if st.madeDir != "" {
		w.removeEmptyDirs(filepath.Dir(st.name), st.madeDir)
	}
}

// mkdirs creates dir and its missing parents and returns the topmost one it
// created ("" if dir existed).
func (w *Workspace) mkdirs(dir string) (string, error) {
	top := ""
	for d := dir; d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if _, err := w.root.Lstat(d); err == nil {
			break
		}
		top = d
	}
	if top == "" {
		return "", nil
	}
	return top, w.root.MkdirAll(dir, 0o755)
}

// removeEmptyDirs removes dir and its parents up to and including top, as
// long as they are empty.
func (w *Workspace) removeEmptyDirs(dir, top string) {
	for d := dir; ; d = filepath.Dir(d) {
		if w.root.Remove(d) != nil || d == top || d == "." {
			return
		}
	}
}

// syncDir fsyncs a directory so a rename in it survives a crash. Failure is
// ignored: some file systems refuse fsync on directories, and the rename
// itself has happened.
func (w *Workspace) syncDir(dir string) {
	if d, err := w.root.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// step runs the test hook, if any.
func (w *Workspace) step(step, name string) error {
	if w.fail == nil {
		return nil
	}
	return w.fail(step, name)
}
