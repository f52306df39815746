package files

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The fault test re-executes this test binary as the writer child
// (hashicorp/go-plugin style): with writerEnv set, TestMain runs
// writerChild instead of the tests.
const writerEnv = "FILES_TEST_WRITER_CHILD"

const faultSize = 16 << 20

func TestMain(m *testing.M) {
	if mode := os.Getenv(writerEnv); mode != "" {
		writerChild(mode, os.Args[len(os.Args)-1])
		return
	}
	if at := os.Getenv(committerEnv); at != "" {
		committerChild(at, os.Args[len(os.Args)-2], os.Args[len(os.Args)-1])
		return
	}
	goleak.VerifyTestMain(m) // the hash pipe's goroutine must end with every scan
}

// writerChild rewrites path with faultSize bytes of 'b', announcing each
// attempt on stdout. In "before-rename" mode it stops between staging and
// the rename, so the parent's kill lands exactly there.
func writerChild(mode, path string) {
	w, err := Open(filepath.Dir(path), true)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	if mode == "before-rename" {
		w.fail = func(step, _ string) error {
			if step == "rename" {
				fmt.Println("staged")
				time.Sleep(time.Minute)
			}
			return nil
		}
	}
	data := strings.Repeat("b", faultSize)
	fmt.Println("writing")
	for {
		if _, err := w.WriteFile(path, data); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
	}
}

// TestWriterKilledMidWrite SIGKILLs a child writing a large file at random
// moments (and once exactly before the rename): the file is always the old
// content or the new one, never a mix or a truncation.
func TestWriterKilledMidWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("writes hundreds of MiB")
	}
	old := bytes.Repeat([]byte{'a'}, faultSize)
	attempts := []string{"random", "random", "random", "random", "random", "before-rename"}
	seen := map[string]int{}
	for i, mode := range attempts {
		dir, _ := filepath.EvalSymlinks(t.TempDir())
		path := dir + "/big.txt"
		if err := os.WriteFile(path, old, 0o644); err != nil {
			t.Fatal(err)
		}
		killWriter(t, mode, path, time.Duration(rand.IntN(150))*time.Millisecond)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case bytes.Equal(got, old):
			seen["old"]++
		case len(got) == faultSize && bytes.Count(got, []byte{'b'}) == faultSize:
			seen["new"]++
		default:
			t.Fatalf("attempt %d (%s): the file is a mix: %d bytes, %d of them new", i, mode, len(got), bytes.Count(got, []byte{'b'}))
		}
		if mode == "before-rename" && !bytes.Equal(got, old) {
			t.Errorf("killed before the rename, yet the file changed")
		}
	}
	t.Logf("outcomes: %v", seen)
}

func killWriter(t *testing.T, mode, path string, delay time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", path)
	cmd.Env = append(os.Environ(), writerEnv+"="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	want := "writing"
	if mode == "before-rename" {
		want, delay = "staged", 0
		lines.Scan() // "writing"
	}
	if !lines.Scan() || lines.Text() != want {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("writer said %q, want %q", lines.Text(), want)
	}
	time.Sleep(delay)
	cmd.Process.Kill()
	if err = cmd.Wait(); !killedHard(err) {
		t.Fatalf("writer ended with %v, not by SIGKILL", err)
	}
}
