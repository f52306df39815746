package files

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The crash tests re-execute this test binary as the committer child
// (committerChild): it commits crashTree's changes with a journal and
// SIGKILLs itself at the given step, so the parent sees exactly what a
// crash there leaves and what the next Recover makes of it.
const committerEnv = "FILES_TEST_COMMITTER_CHILD"

// crashTree writes the tree before the commit and returns the changes: ten
// files updated, one created in a new directory, one deleted, one moved.
func crashTree(t testing.TB, dir string) {
	t.Helper()
	for i := range 10 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(fmt.Sprintf("old %d\n", i)), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "gone.txt"), []byte("to delete\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "from.txt"), []byte("moved\n"), 0o600)
}

func crashChanges(dir string) []Change {
	var cs []Change
	for i := range 10 {
		cs = append(cs, Change{Path: filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), Data: fmt.Sprintf("new %d\n", i), Prev: fmt.Sprintf("old %d\n", i), Exists: true})
	}
	return append(cs,
		Change{Path: filepath.Join(dir, "made/dir/new.txt"), Data: "created\n"},
		Change{Path: filepath.Join(dir, "gone.txt"), Delete: true, Exists: true},
		Change{Path: filepath.Join(dir, "to.txt"), Data: "moved\n", Mode: 0o600},
		Change{Path: filepath.Join(dir, "from.txt"), Delete: true, Exists: true},
	)
}

// killAt is a fault hook that SIGKILLs the process at the n-th rename or
// removal ("rename:N"), or at a named step ("commit", "cleanup").
func killAt(at string) func(step, name string) error {
	n := 0
	return func(step, _ string) error {
		if step == "rename" || step == "remove" {
			n++
			if at == "rename:"+strconv.Itoa(n) {
				killSelf()
			}
		}
		if step == at {
			killSelf()
		}
		return nil
	}
}

func committerChild(at, dir, journal string) {
	w, err := Open(dir, true, WithJournal(journal), WithFault(killAt(at)))
	if err == nil {
		err = w.Commit(crashChanges(dir))
	}
	fmt.Println("committed", err)
	os.Exit(3)
}

// commitAndCrash runs the committer child and requires it to die by
// SIGKILL.
func commitAndCrash(t *testing.T, at, dir, journal string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", dir, journal)
	cmd.Env = append(os.Environ(), committerEnv+"="+at)
	out, err := cmd.CombinedOutput()
	if !killedHard(err) {
		t.Fatalf("committer ended with %v, not by SIGKILL: %s", err, out)
	}
}

func tempDir(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCrashDuringCommitIsRolledBack kills the committer before each rename
// in turn, after the last one, and during the cleanup: the next Recover
// gives the tree before the commit (or, once the commit was marked done,
// the tree after it), with no staged file, backup or journal left.
func TestCrashDuringCommitIsRolledBack(t *testing.T) {
	base := tempDir(t)
	before, after := base+"/before", base+"/after"
	os.Mkdir(before, 0o755)
	os.Mkdir(after, 0o755)
	crashTree(t, before)
	crashTree(t, after)
	if err := openWorkspace(t, after, true).Commit(crashChanges(after)); err != nil {
		t.Fatal(err)
	}
	wantBefore, wantAfter := snapshot(t, before), snapshot(t, after)
	steps := []string{"commit", "cleanup"}
	for i := 1; i <= len(crashChanges(before)); i++ {
		steps = append(steps, "rename:"+strconv.Itoa(i))
	}
	for _, at := range steps {
		t.Run(at, func(t *testing.T) {
			dir, journal := tempDir(t), tempDir(t)
			crashTree(t, dir)
			commitAndCrash(t, at, dir, journal)
			if at == "rename:6" && snapshot(t, dir)["f4.txt"] != "new 4\n -rw-r-----" {
				t.Fatalf("the crash did not land mid-commit: %v", snapshot(t, dir))
			}
			w := openWorkspace(t, dir, true, WithJournal(journal))
			recs, err := w.Recover()
			if err != nil || len(recs) != 1 {
				t.Fatalf("Recover = %+v, %v", recs, err)
			}
			want := wantBefore
			if at == "cleanup" {
				want = wantAfter
			}
			if diff := cmp.Diff(want, snapshot(t, dir)); diff != "" {
				t.Errorf("tree after recovery (-want +got):\n%s", diff)
			}
			if recs[0].RolledBack != (at != "cleanup") || len(recs[0].Left) != 0 {
				t.Errorf("recovery = %+v", recs[0])
			}
			if left := listDir(t, journal); len(left) != 1 { // only the workspace's own directory
				t.Errorf("journal left behind: %v", left)
			}
			if again, _ := w.Recover(); len(again) != 0 {
				t.Errorf("a second Recover found %+v", again)
			}
		})
	}
}

// TestRecoverLeavesFilesChangedSinceTheCrash: a file someone changed after
// the crash is not overwritten; its original stays in the kept journal
// directory, and the rest is rolled back.
func TestRecoverLeavesFilesChangedSinceTheCrash(t *testing.T) {
	dir, journal := tempDir(t), tempDir(t)
	crashTree(t, dir)
	commitAndCrash(t, "rename:5", dir, journal)
	os.WriteFile(dir+"/f0.txt", []byte("edited by a person\n"), 0o640)
	recs, err := openWorkspace(t, dir, true, WithJournal(journal)).Recover()
	if err != nil || len(recs) != 1 {
		t.Fatalf("Recover = %+v, %v", recs, err)
	}
	r := recs[0]
	if diff := cmp.Diff([]string{dir + "/f0.txt: changed since the crash; its original is kept in the journal"}, r.Left); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
	if len(r.Restored) != 3 || !strings.Contains(r.Summary(), "restored ") || !strings.Contains(r.Summary(), r.KeptDir) {
		t.Errorf("recovery = %+v (%s)", r, r.Summary())
	}
	if b, _ := os.ReadFile(dir + "/f0.txt"); string(b) != "edited by a person\n" {
		t.Errorf("f0.txt = %q", b)
	}
	if b, _ := os.ReadFile(dir + "/f3.txt"); string(b) != "old 3\n" {
		t.Errorf("f3.txt = %q", b)
	}
	if b, err := os.ReadFile(r.KeptDir + "/0.orig"); err != nil || string(b) != "old 0\n" {
		t.Errorf("kept original = %q, %v", b, err)
	}
}

// TestRecoverSkipsALiveCommit: a second workspace on the same directory
// (another sidecar) recovering while a commit runs leaves it alone.
func TestRecoverSkipsALiveCommit(t *testing.T) {
	dir, journal := tempDir(t), tempDir(t)
	crashTree(t, dir)
	other := openWorkspace(t, dir, true, WithJournal(journal))
	var seen []Recovery
	var seenErr error
	w := openWorkspace(t, dir, true, WithJournal(journal), WithFault(func(step, _ string) error {
		if step == "rename" && seen == nil {
			seen, seenErr = other.Recover()
			if seen == nil {
				seen = []Recovery{}
			}
		}
		return nil
	}))
	if err := w.Commit(crashChanges(dir)); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 0 || seenErr != nil {
		t.Errorf("Recover during a live commit = %+v, %v", seen, seenErr)
	}
	if b, _ := os.ReadFile(dir + "/f9.txt"); string(b) != "new 9\n" {
		t.Errorf("the commit did not complete: %q", b)
	}
}

// TestCommitJournalIsRemoved: after a commit, and after an in-process
// failure that was rolled back, nothing is left in the journal.
func TestCommitJournalIsRemoved(t *testing.T) {
	for _, fail := range []string{"", "journal", "rename", "remove"} {
		t.Run(fail, func(t *testing.T) {
			dir, journal := tempDir(t), tempDir(t)
			crashTree(t, dir)
			before := snapshot(t, dir)
			w := openWorkspace(t, dir, true, WithJournal(journal), WithFault(func(step, _ string) error {
				if step == fail {
					return errors.New("injected")
				}
				return nil
			}))
			err := w.Commit(crashChanges(dir))
			if (err != nil) != (fail != "") {
				t.Fatalf("Commit = %v", err)
			}
			if fail != "" {
				if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
					t.Errorf("tree after the rollback (-want +got):\n%s", diff)
				}
			}
			entries, _ := os.ReadDir(w.Journal())
			if len(entries) != 0 {
				t.Errorf("journal holds %d entries", len(entries))
			}
		})
	}
}

// TestJournalUnwritable: a journal that cannot be written refuses the
// commit before any file changes.
func TestJournalUnwritable(t *testing.T) {
	dir, base := tempDir(t), tempDir(t)
	crashTree(t, dir)
	before := snapshot(t, dir)
	os.WriteFile(base+"/file", nil, 0o644) // a file where the journal's directory should go
	w := openWorkspace(t, dir, true, WithJournal(base+"/file"))
	err := w.Commit(crashChanges(dir))
	if err == nil || !strings.Contains(err.Error(), "writing the rollback journal") {
		t.Fatalf("Commit = %v", err)
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}
