package files

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// patchTree is the tree before every commit test, and the changes: update
// a.txt, create new/b.txt, delete c.txt, move d.txt to moved/d.txt.
func patchTree(t *testing.T) (*Workspace, string, []Change) {
	w, dir := newWorkspace(t)
	os.WriteFile(dir+"/a.txt", []byte("a old"), 0o600)
	os.WriteFile(dir+"/c.txt", []byte("c"), 0o644)
	os.WriteFile(dir+"/d.txt", []byte("d"), 0o755)
	return w, dir, []Change{
		{Path: dir + "/a.txt", Data: "a new", Prev: "a old", Exists: true},
		{Path: dir + "/new/b.txt", Data: "b"},
		{Path: dir + "/c.txt", Delete: true, Exists: true},
		{Path: dir + "/moved/d.txt", Data: "d", Mode: 0o755},
		{Path: dir + "/d.txt", Delete: true, Exists: true},
	}
}

func snapshot(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	for _, p := range listDir(t, dir) {
		fi, _ := os.Stat(dir + "/" + p)
		if fi.IsDir() {
			out[p] = "dir"
			continue
		}
		b, _ := os.ReadFile(dir + "/" + p)
		out[p] = fmt.Sprintf("%s %v", b, fi.Mode().Perm())
	}
	return out
}

func TestCommitAppliesEverything(t *testing.T) {
	w, dir, changes := patchTree(t)
	if err := w.Commit(changes); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a.txt": "a new -rw-------", "new": "dir", "new/b.txt": "b -rw-r--r--",
		"moved": "dir", "moved/d.txt": "d -rwxr-xr-x",
	}
	if diff := cmp.Diff(want, snapshot(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}

// TestCommitRollsBackAtEveryStep fails the commit at each step in turn and
// shows that the tree is exactly as before, with no temporary file, backup
// or created directory left.
func TestCommitRollsBackAtEveryStep(t *testing.T) {
	_, dir0, _ := patchTree(t)
	before := snapshot(t, dir0)
	steps := []struct{ step, name string }{
		{"stage", "a.txt"}, {"stage", "new/b.txt"}, {"stage", "moved/d.txt"},
		{"rename", "a.txt"}, {"rename", "new/b.txt"}, {"remove", "c.txt"},
		{"rename", "moved/d.txt"}, {"remove", "d.txt"},
	}
	for _, s := range steps {
		t.Run(s.step+" "+s.name, func(t *testing.T) {
			w, dir, changes := patchTree(t)
			w.fail = func(step, name string) error {
				if step == s.step && name == s.name {
					return errors.New("injected failure")
				}
				return nil
			}
			if err := w.Commit(changes); err == nil {
				t.Fatal("commit succeeded")
			}
			if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("tree after rollback (-before +after):\n%s", diff)
			}
		})
	}
}

func TestCommitRefusesAFileThatAppeared(t *testing.T) {
	w, dir, changes := patchTree(t)
	os.MkdirAll(dir+"/new", 0o755)
	os.WriteFile(dir+"/new/b.txt", []byte("someone else's"), 0o644)
	if err := w.Commit(changes); err == nil {
		t.Fatal("commit overwrote a file that appeared")
	}
	if b, _ := os.ReadFile(dir + "/new/b.txt"); string(b) != "someone else's" {
		t.Errorf("b.txt = %q", b)
	}
	if b, _ := os.ReadFile(dir + "/a.txt"); string(b) != "a old" {
		t.Errorf("a.txt = %q", b)
	}
}
