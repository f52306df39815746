package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Recovery is what Recover did with one transaction a crash interrupted.
type Recovery struct {
	ID string
	// RolledBack is set for a commit that was still renaming: its files
	// are back as they were. Otherwise it had finished and only its
	// leftovers (backups of deleted files) were removed.
	RolledBack bool
	Restored   []string // files given back their content from before the commit
	Removed    []string // files the commit created, removed again
	// Left are files changed by someone else since the crash, left as they
	// are ("path: why"); KeptDir then holds the transaction, with the
	// originals, for the user.
	Left    []string
	KeptDir string
}

// Recover rolls back every transaction of this workspace's journal that a
// crash interrupted, newest change first, and reports what it did. A
// transaction whose commit is still running in another live process (its
// manifest is locked) is left alone. A file is only touched when it holds
// exactly what the commit wrote: anything else was changed since, and is
// left, with the original kept in the journal.
func (w *Workspace) Recover() ([]Recovery, error) {
	if w.journal == "" {
		return nil, nil
	}
	names, err := os.ReadDir(w.journal)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the rollback journal %s: %w", w.journal, err)
	}
	var out []Recovery
	var errs []error
	for _, d := range names {
		if !d.IsDir() || strings.HasPrefix(d.Name(), keptPrefix) {
			continue
		}
		r, ok, err := w.recoverTxn(filepath.Join(w.journal, d.Name()))
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, errors.Join(errs...)
}

// recoverTxn handles one transaction directory; ok is false when there was
// nothing to report (a live commit, or one that never got past writing its
// journal).
func (w *Workspace) recoverTxn(dir string) (Recovery, bool, error) {
	live, lock := tryTxnLock(dir, w.journal)
	if live {
		return Recovery{}, false, nil
	}
	defer lock.release()
	name := filepath.Base(dir)
	if strings.HasSuffix(name, buildSuffix) { // no rename happened yet
		return Recovery{}, false, os.RemoveAll(dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	var m manifest
	if err == nil {
		m, err = parseManifest(b, w.dir)
	}
	done := strings.HasSuffix(name, doneSuffix)
	switch {
	case done && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, errUndecodable)): // the cleanup was removing the transaction itself
		return Recovery{}, false, os.RemoveAll(dir)
	case errors.Is(err, errForeign):
		return Recovery{}, false, fmt.Errorf("rollback journal %s belongs to the workspace %s, not %s; it is left in place", dir, m.Workspace, w.dir)
	case errors.Is(err, errManifest):
		return Recovery{}, false, fmt.Errorf("rollback journal %s is refused, nothing in it was followed (%v); it is left in place for a person to look at", dir, err)
	case err != nil:
		return Recovery{}, false, fmt.Errorf("rollback journal %s is unreadable (%v); it is left in place", dir, err)
	}
	r := Recovery{ID: strings.TrimSuffix(name, doneSuffix), RolledBack: !done}
	if done {
		w.finishTxn(m)
	} else {
		for i := len(m.Entries) - 1; i >= 0; i-- {
			w.undo(dir, m.Entries[i], &r)
		}
	}
	sort.Strings(r.Restored)
	sort.Strings(r.Removed)
	if len(r.Left) > 0 {
		r.KeptDir = filepath.Join(w.journal, keptPrefix+r.ID)
		return r, true, os.Rename(dir, r.KeptDir)
	}
	return r, true, os.RemoveAll(dir)
}

// finishTxn removes what a finished commit had not cleaned up yet.
func (w *Workspace) finishTxn(m manifest) {
	for _, e := range m.Entries {
		if e.Backup != "" {
			_ = w.root.Remove(w.name(e.Backup))
		}
	}
}

// undo reverses one entry of an interrupted commit, if it was applied and
// nobody changed the file since.
func (w *Workspace) undo(dir string, e entry, r *Recovery) {
	if e.Tmp != "" {
		_ = w.root.Remove(w.name(e.Tmp)) // staged, never renamed
	}
	name := w.name(e.Path)
	left := func(why string) { r.Left = append(r.Left, e.Path+": "+why) }
	switch e.Op {
	case opReplace:
		switch cur, exists := w.digestOf(e.Path); {
		case !exists:
			left("removed since the crash; its original is kept in the journal")
		case cur == e.Before:
		case cur == e.After:
			orig, err := os.ReadFile(filepath.Join(dir, e.Orig))
			if err == nil {
				err = w.restore(Change{Path: e.Path, Prev: string(orig)})
			}
			if err != nil {
				left(fmt.Sprintf("could not be restored (%v); its original is kept in the journal", err))
				return
			}
			r.Restored = append(r.Restored, e.Path)
		default:
			left("changed since the crash; its original is kept in the journal")
		}
	case opCreate:
		switch cur, exists := w.digestOf(e.Path); {
		case !exists:
		case cur == e.After:
			if err := w.root.Remove(name); err != nil {
				left(fmt.Sprintf("could not be removed: %v", err))
				return
			}
			r.Removed = append(r.Removed, e.Path)
		default:
			left("changed since the crash, so it is not removed")
			return
		}
		if e.MadeDir != "" { // staging made them, renamed or not
			w.removeEmptyDirs(filepath.Dir(name), w.name(e.MadeDir))
		}
	case opDelete:
		if _, err := w.root.Lstat(w.name(e.Backup)); err != nil {
			return // never moved away
		}
		if _, err := w.root.Lstat(name); err == nil {
			left("recreated since the crash; the deleted file is kept beside it as " + filepath.Base(e.Backup))
			return
		}
		if err := w.replace(w.name(e.Backup), name); err != nil {
			left(fmt.Sprintf("could not be put back from %s: %v", filepath.Base(e.Backup), err))
			return
		}
		r.Restored = append(r.Restored, e.Path)
	}
	w.syncDir(filepath.Dir(name))
}

// digestOf is the SHA-256 of the regular file at abs; exists is false when
// there is none.
func (w *Workspace) digestOf(abs string) (sum string, exists bool) {
	f, fi, err := w.OpenRead(abs)
	if err != nil {
		return "", !errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	h := sha256.New()
	if err := Hash(context.Background(), h, f, fi.Size()); err != nil {
		return "", true
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// Summary is a one-line account of a recovery, for the log.
func (r Recovery) Summary() string {
	var parts []string
	if len(r.Restored) > 0 {
		parts = append(parts, "restored "+strings.Join(r.Restored, ", "))
	}
	if len(r.Removed) > 0 {
		parts = append(parts, "removed "+strings.Join(r.Removed, ", "))
	}
	if len(r.Left) > 0 {
		parts = append(parts, "left alone "+strings.Join(r.Left, "; ")+" (originals in "+r.KeptDir+")")
	}
	if len(parts) == 0 {
		return "nothing had changed yet"
	}
	return strings.Join(parts, "; ")
}
