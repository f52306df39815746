//go:build unix

package files

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpenReadRefusesSpecialFilesWithoutBlocking(t *testing.T) {
	w, dir := newWorkspace(t)
	if err := syscall.Mkfifo(dir+"/fifo", 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Mkdir(dir+"/d", 0o755)
	done := make(chan error, 2)
	go func() {
		_, _, err := w.OpenRead(dir + "/fifo")
		done <- err
		_, _, err = w.OpenRead(dir + "/d")
		done <- err
	}()
	for _, want := range []string{"named pipe", "is a directory"} {
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v, want %q", err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("OpenRead blocked on a FIFO")
		}
	}
}
