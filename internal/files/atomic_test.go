package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listDir returns every entry under dir (relative), to show that nothing
// (a temporary file, a directory) was left behind.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// newWorkspace is a confined workspace on a fresh temporary directory.
func newWorkspace(t *testing.T) (*Workspace, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return openWorkspace(t, dir, true), dir
}

// openWorkspace opens dir, closing it when the test ends.
func openWorkspace(t testing.TB, dir string, confine bool, opts ...Option) *Workspace {
	t.Helper()
	w, err := Open(dir, confine, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func TestWriteFileKeepsModeAndCreatesParents(t *testing.T) {
	w, dir := newWorkspace(t)
	exec := dir + "/run.sh"
	os.WriteFile(exec, []byte("old"), 0o755)
	os.Chmod(exec, 0o751|fs.ModeSetuid) // setuid survives too
	created, err := w.WriteFile(exec, "#!/bin/sh\n")
	if err != nil || created {
		t.Fatalf("WriteFile = %v, %v", created, err)
	}
	fi, _ := os.Stat(exec)
	if fi.Mode()&KeptModeBits != 0o751|fs.ModeSetuid {
		t.Errorf("mode = %v, want -rwxr-x--x with setuid", fi.Mode())
	}
	created, err = w.WriteFile(dir+"/a/b/c.txt", "new\n")
	if err != nil || !created {
		t.Fatalf("WriteFile new = %v, %v", created, err)
	}
	fi, _ = os.Stat(dir + "/a/b/c.txt")
	if fi.Mode().Perm() != DefaultMode {
		t.Errorf("new file mode = %v", fi.Mode())
	}
	if diff := cmp.Diff([]string{"a", "a/b", "a/b/c.txt", "run.sh"}, listDir(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}

func TestWriteFileThroughSymlinkKeepsTheLink(t *testing.T) {
	w, dir := newWorkspace(t)
	os.WriteFile(dir+"/real.txt", []byte("old"), 0o600)
	os.Symlink("real.txt", dir+"/link.txt")
	abs, err := w.Resolve("link.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteFile(abs, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(dir + "/link.txt"); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(dir + "/real.txt"); string(b) != "new" {
		t.Errorf("target = %q", b)
	}
}

func TestWriteFileFailureLeavesNothingBehind(t *testing.T) {
	for _, step := range []string{"stage", "rename"} {
		t.Run(step, func(t *testing.T) {
			w, dir := newWorkspace(t)
			os.WriteFile(dir+"/keep.txt", []byte("old"), 0o644)
			w.fail = func(s, name string) error {
				if s == step {
					return errors.New("injected")
				}
				return nil
			}
			if _, err := w.WriteFile(dir+"/keep.txt", "new"); err == nil {
				t.Fatal("no error")
			}
			if _, err := w.WriteFile(dir+"/x/y/new.txt", "new"); err == nil {
				t.Fatal("no error")
			}
			if b, _ := os.ReadFile(dir + "/keep.txt"); string(b) != "old" {
				t.Errorf("keep.txt = %q", b)
			}
			if diff := cmp.Diff([]string{"keep.txt"}, listDir(t, dir)); diff != "" {
				t.Errorf("tree (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteFileRefusesNonRegular(t *testing.T) {
	w, dir := newWorkspace(t)
	os.Mkdir(dir+"/d", 0o755)
	if _, err := w.WriteFile(dir+"/d", "x"); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("err = %v", err)
	}
	if _, err := w.WriteFile(dir+"/d/../x\x00", "x"); err == nil {
		t.Error("NUL name accepted")
	}
}

func TestReadFileLimit(t *testing.T) {
	w, dir := newWorkspace(t)
	os.WriteFile(dir+"/big", []byte("0123456789"), 0o644)
	if _, _, err := w.ReadFile(dir+"/big", 9); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v", err)
	}
	if b, _, err := w.ReadFile(dir+"/big", 10); err != nil || string(b) != "0123456789" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
}
