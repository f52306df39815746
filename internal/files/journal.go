package files

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"unsafe"
)

// The rollback journal makes a multi-file Commit atomic across a crash
// (SPEC §4.1: a SIGKILL during the renames must not leave some files patched).
// After staging and before the first rename, Commit writes a transaction
// directory in the journal directory of its workspace: a manifest of every
// change (its staged file, the backup name of a file it deletes, digests of
// the content before and after) and a copy of every file it replaces. The
// manifest stays locked (flock; on Windows a lock file beside it) while the
// commit runs, so another sidecar on the same workspace can tell a live
// commit from a dead one. After the
// last rename the directory is renamed to mark the transaction done (the
// atomic switch), the backups of deleted files are removed and the
// directory goes. Recover, at the next start, rolls back every transaction
// that is not done (recover.go).

// Names in a journal directory.
const (
	manifestName = "manifest.json"
	buildSuffix  = ".tmp"  // a transaction being written: no rename has happened
	doneSuffix   = ".done" // a finished transaction whose cleanup may be incomplete
	keptPrefix   = "kept-" // a rolled-back transaction whose originals are kept for the user
)

// Operations of a journal entry.
const (
	opReplace = "replace"
	opCreate  = "create"
	opDelete  = "delete"
)

// manifest is one transaction: the changes of one Commit, in order.
type manifest struct {
	Workspace string  `json:"workspace"`
	Pid       int     `json:"pid"`
	Entries   []entry `json:"entries"`
}

// entry is one change. Paths are absolute.
type entry struct {
	Path    string `json:"path"`
	Op      string `json:"op"`
	Tmp     string `json:"tmp,omitempty"`     // the staged new content (replace, create)
	Backup  string `json:"backup,omitempty"`  // where a deleted file is moved (delete)
	Orig    string `json:"orig,omitempty"`    // the copy of the original, in the transaction directory (replace)
	Before  string `json:"before,omitempty"`  // SHA-256 of the original (replace)
	After   string `json:"after,omitempty"`   // SHA-256 of the new content (replace, create)
	MadeDir string `json:"madeDir,omitempty"` // the topmost directory created for a new file (create)
}

// journalDir is the directory of a workspace's transactions under the
// journal root: one per workspace, named by a digest of its path.
func journalDir(root, workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(root, hex.EncodeToString(sum[:8]))
}

// txn is a transaction being committed; nil when there is no journal.
type txn struct {
	dir  string   // its directory
	lock *txnLock // held until the transaction ends
}

// beginJournal writes the transaction of changes and returns it; nil
// without a journal or for a single change that is not a delete (one
// rename is atomic by itself).
func (w *Workspace) beginJournal(changes []Change, staged []*staged, backups []string) (*txn, error) {
	if w.journal == "" || (len(changes) == 1 && !changes[0].Delete) {
		return nil, nil
	}
	if err := w.step("journal", ""); err != nil {
		return nil, err
	}
	tx, err := w.writeTxn(changes, staged, backups)
	if err != nil {
		return nil, fmt.Errorf("writing the rollback journal in %s: %w; no file was changed", w.journal, err)
	}
	return tx, nil
}

func (w *Workspace) writeTxn(changes []Change, staged []*staged, backups []string) (*txn, error) {
	if err := os.MkdirAll(w.journal, 0o700); err != nil {
		return nil, err
	}
	id := strconv.FormatUint(rand.Uint64(), 36)
	build := filepath.Join(w.journal, id+buildSuffix)
	if err := os.Mkdir(build, 0o700); err != nil {
		return nil, err
	}
	manifestFile, err := os.OpenFile(filepath.Join(build, manifestName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	var lock *txnLock
	if err == nil {
		lock, err = acquireTxnLock(manifestFile, w.journal, id)
	}
	if err == nil {
		err = w.fillTxn(build, manifestFile, changes, staged, backups)
	}
	if manifestFile != nil && (lock == nil || lock.f != manifestFile) {
		manifestFile.Close() // the lock is elsewhere (Windows): a directory with an open file cannot be renamed there
	}
	live := filepath.Join(w.journal, id)
	if err == nil {
		err = os.Rename(build, live)
	}
	if err != nil {
		lock.release()
		os.RemoveAll(build)
		return nil, err
	}
	syncPath(w.journal)
	return &txn{dir: live, lock: lock}, nil
}

// fillTxn writes the originals and the manifest, all fsynced.
func (w *Workspace) fillTxn(dir string, manifestFile *os.File, changes []Change, staged []*staged, backups []string) error {
	m := manifest{Workspace: w.dir, Pid: os.Getpid(), Entries: make([]entry, len(changes))}
	for i, c := range changes {
		e := entry{Path: c.Path}
		switch {
		case c.Delete:
			e.Op, e.Backup = opDelete, w.abs(backups[i])
		case c.Exists:
			e.Op, e.Tmp, e.Before, e.After = opReplace, w.abs(staged[i].tmp), digest(c.Prev), digest(c.Data)
			e.Orig = strconv.Itoa(i) + ".orig"
			if err := writeSynced(filepath.Join(dir, e.Orig), c.Prev); err != nil {
				return err
			}
		default:
			e.Op, e.Tmp, e.After = opCreate, w.abs(staged[i].tmp), digest(c.Data)
			if staged[i].madeDir != "" {
				e.MadeDir = w.abs(staged[i].madeDir)
			}
		}
		m.Entries[i] = e
	}
	b, err := json.Marshal(m)
	if err == nil {
		_, err = manifestFile.Write(b)
	}
	if err == nil {
		err = manifestFile.Sync()
	}
	if err == nil {
		syncPath(dir)
	}
	return err
}

// finish marks the transaction done, runs cleanup (removing the deleted
// files' backups) and removes the transaction. If the mark fails the
// transaction is removed first: a crash must never roll back a commit
// whose backups are gone.
func (t *txn) finish(cleanup func()) {
	if t == nil {
		cleanup()
		return
	}
	if os.Rename(t.dir, t.dir+doneSuffix) == nil {
		t.dir += doneSuffix
		syncPath(filepath.Dir(t.dir))
		cleanup()
		t.end()
		return
	}
	t.end()
	cleanup()
}

// end removes the transaction and releases its lock.
func (t *txn) end() {
	if t == nil {
		return
	}
	os.RemoveAll(t.dir)
	syncPath(filepath.Dir(t.dir))
	t.lock.release()
}

// abs is a root name as an absolute path.
func (w *Workspace) abs(name string) string { return filepath.Join(w.root.Name(), name) }

// digest is the SHA-256 of s in hex (the same as a version).
func digest(s string) string {
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(s), len(s))) // read only
	return hex.EncodeToString(sum[:])
}

// writeSynced creates path with data and fsyncs it.
func writeSynced(path, data string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncPath fsyncs a directory outside the workspace root (the journal's).
func syncPath(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// txnLock marks a transaction whose commit is running (lock_unix.go,
// lock_windows.go): the open, locked file and, where the lock is a file of
// its own, its path, removed on release.
type txnLock struct {
	f    *os.File
	path string
}

// release unlocks (closing the file drops the lock) and removes a lock
// file of its own. A nil lock is released.
func (l *txnLock) release() {
	if l == nil {
		return
	}
	l.f.Close()
	if l.path != "" {
		os.Remove(l.path)
	}
}
