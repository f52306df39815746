package files

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"strconv"
)

// Change is one file of a multi-file commit.
type Change struct {
	Path   string      // resolved absolute path
	Delete bool        // remove the file (it must exist)
	Data   string      // the new content, unless Delete
	Mode   fs.FileMode // mode of the result; 0 keeps the existing file's, else DefaultMode
	// Prev is the current content of a file being replaced, as the caller
	// checked it; a rollback writes it back.
	Prev string
	// Exists says whether the caller found the file. A file that appeared
	// since, or vanished, fails the commit.
	Exists bool
}

// Commit applies every change or none (apply_patch). Each new content is
// first staged in a fsynced temporary file; then, with a journal, the
// rollback journal is written (journal.go); then the renames and removals
// run in order, and a failure rolls back the ones already done: replaced
// files get Prev back, created files are removed, deleted files are
// renamed back from their backup. A crash during the renames is rolled
// back by the next Recover. The caller holds the paths' locks.
func (w *Workspace) Commit(changes []Change) error { return w.CommitAs(Origin{}, changes) }

// CommitAs is Commit for the call o; the recorder, if any, hears of every
// file changed.
func (w *Workspace) CommitAs(o Origin, changes []Change) error {
	sts, err := w.stageAll(changes)
	if err != nil {
		return err
	}
	abortAll := func() { abortStaged(w, sts) }
	backups := make([]string, len(changes)) // root names deleted files are moved to
	for i, c := range changes {
		if c.Delete {
			dir, base := filepath.Split(w.name(c.Path))
			backups[i] = filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".del")
		}
	}
	written := w.recordable(changes, sts)
	tx, err := w.beginJournal(changes, sts, backups)
	if err != nil {
		abortAll()
		return err
	}
	var done []undo
	for i, c := range changes {
		u, err := w.apply(c, sts[i], backups[i])
		if err != nil {
			abortAll()
			if rerr := w.rollback(done); rerr != nil {
				// The journal stays: the next start tries the rollback again.
				return fmt.Errorf("%w; rolling back failed too: %v", err, rerr)
			}
			tx.end()
			return err
		}
		sts[i] = nil // applied: its temporary file is gone
		done = append(done, u)
	}
	_ = w.step("commit", "") // tests only: a crash after the last rename
	tx.finish(func() {
		_ = w.step("cleanup", "") // tests only: a crash after the commit was marked done
		for _, u := range done {
			if u.backup != "" {
				_ = w.root.Remove(u.backup)
			}
			w.syncDir(filepath.Dir(w.name(u.change.Path)))
		}
	})
	if w.rec != nil {
		w.rec.Record(o, written)
	}
	return nil
}

// recordable is what the recorder will hear of changes once they are
// applied: each file's content before (as the caller checked it) and
// after; nil without a recorder.
func (w *Workspace) recordable(changes []Change, sts []*staged) []Written {
	if w.rec == nil {
		return nil
	}
	out := make([]Written, len(changes))
	for i, c := range changes {
		wr := Written{Path: c.Path}
		var mode fs.FileMode
		if st := sts[i]; st != nil {
			mode = st.prevMode
			wr.After = w.after(c.Data, st.mode)
		} else if fi, err := w.root.Lstat(w.name(c.Path)); err == nil {
			mode = fi.Mode() & KeptModeBits
		}
		switch {
		case c.Exists && c.Delete: // the caller only hashed it
			wr.Before = w.sideOf(c.Path, nil, mode)
		case c.Exists:
			prev := c.Prev
			wr.Before = w.sideOf(c.Path, &prev, mode)
			wr.Before.TooLarge = int64(len(prev)) > w.rec.Limit()
		}
		out[i] = wr
	}
	return out
}

// stageAll stages the new content of every change that is not a delete,
// and checks that each file still exists or not as the caller found it.
func (w *Workspace) stageAll(changes []Change) ([]*staged, error) {
	sts := make([]*staged, len(changes))
	fail := func(err error) ([]*staged, error) {
		abortStaged(w, sts)
		return nil, err
	}
	for i, c := range changes {
		if c.Delete {
			continue
		}
		if err := w.step("stage", w.name(c.Path)); err != nil {
			return fail(err)
		}
		st, err := w.stage(c.Path, c.Data, c.Mode)
		if err != nil {
			return fail(err)
		}
		sts[i] = st
		if st.created == c.Exists {
			return fail(fmt.Errorf("%s changed on disk during the patch (it %s); read it again", c.Path, appearedOrVanished(c.Exists)))
		}
	}
	return sts, nil
}

// abortStaged removes what staging left of each change not yet applied.
func abortStaged(w *Workspace, sts []*staged) {
	for _, st := range sts {
		if st != nil {
			st.abort(w)
		}
	}
}

func appearedOrVanished(existed bool) string {
	if existed {
		return "vanished"
	}
	return "appeared"
}

// undo is what rollback needs to reverse one applied change.
type undo struct {
	change  Change
	backup  string // root name a deleted file was renamed to
	madeDir string // topmost directory created for a new file
}

// apply renames a staged file over its target, or moves a deleted file to
// its backup name beside it.
func (w *Workspace) apply(c Change, st *staged, backup string) (undo, error) {
	name := w.name(c.Path)
	if c.Delete {
		if err := w.step("remove", name); err != nil {
			return undo{}, err
		}
		if err := w.replace(name, backup); err != nil {
			return undo{}, fmt.Errorf("deleting %s: %w", c.Path, err)
		}
		return undo{change: c, backup: backup}, nil
	}
	if err := w.step("rename", name); err != nil {
		return undo{}, err
	}
	if err := w.replace(st.tmp, name); err != nil {
		return undo{}, fmt.Errorf("replacing %s: %w", c.Path, err)
	}
	return undo{change: c, madeDir: st.madeDir}, nil
}

// rollback reverses applied changes, newest first, and reports what it
// could not restore.
func (w *Workspace) rollback(done []undo) error {
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		u := done[i]
		name := w.name(u.change.Path)
		var err error
		switch {
		case u.backup != "":
			err = w.replace(u.backup, name)
		case u.change.Exists:
			err = w.restore(u.change)
		default:
			if err = w.root.Remove(name); err == nil && u.madeDir != "" {
				w.removeEmptyDirs(filepath.Dir(name), u.madeDir)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u.change.Path, err))
		}
	}
	return errors.Join(errs...)
}

// restore writes a replaced file's previous content back, atomically.
func (w *Workspace) restore(c Change) error {
	st, err := w.stage(c.Path, c.Prev, 0)
	if err != nil {
		return err
	}
	if err := w.replace(st.tmp, st.name); err != nil {
		st.abort(w)
		return err
	}
	return nil
}
