package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadAllowlist(t *testing.T) {
	home := plantHome(t)
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "ssh-link"))
	os.Symlink(filepath.Join(home, "notes.txt"), filepath.Join(home, "notes-link"))
	dirs, files, watched := readAllowlist([]string{home + "/.ssh", home + "/.netrc"})
	for _, want := range []string{home + "/.aws", home + "/.config"} {
		if !contains(dirs, want) {
			t.Errorf("dirs lack %s", want)
		}
	}
	for _, want := range []string{home + "/notes.txt", home + "/notes-link"} {
		if !contains(files, want) {
			t.Errorf("files lack %s", want)
		}
	}
	for _, not := range []string{home + "/.ssh", home + "/.netrc", home + "/ssh-link", home, "/"} {
		if contains(dirs, not) || contains(files, not) {
			t.Errorf("%s is granted", not)
		}
	}
	if _, ok := watched[home]; !ok {
		t.Errorf("the home directory is not watched: %v", watched)
	}
}
