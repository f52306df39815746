package tools

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFileCreatesAndOverwrites(t *testing.T) {
	h := newFileHarness(t)
	res := h.ok("write_file", map[string]any{"path": "new/dir/f.txt", "content": "a\r\nb"})
	want := map[string]any{"path": h.abs("new/dir/f.txt"), "version": version("a\r\nb"), "created": true, "bytes": json.Number("4")}
	if diff := cmp.Diff(want, res.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if got := h.content("new/dir/f.txt"); got != "a\r\nb" {
		t.Errorf("content = %q, not byte for byte", got)
	}
	// Own writes refresh the state: iterative writing needs no re-read.
	h.ok("write_file", map[string]any{"path": "new/dir/f.txt", "content": "second"})
	res = h.ok("write_file", map[string]any{"path": "new/dir/f.txt", "content": "third"})
	if res.Data["created"] != false || h.content("new/dir/f.txt") != "third" {
		t.Errorf("third write: %v, %q", res.Data, h.content("new/dir/f.txt"))
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	h := newFileHarness(t)
	h.write("run.sh", "echo 1\n")
	os.Chmod(h.abs("run.sh"), 0o750)
	h.read("run.sh")
	h.ok("write_file", map[string]any{"path": "run.sh", "content": "echo 2\n"})
	if fi, _ := os.Stat(h.abs("run.sh")); fi.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v", fi.Mode())
	}
}

func TestWriteFileRefusals(t *testing.T) {
	h := newFileHarness(t, maxBytes(1024))
	os.Mkdir(h.abs("dir"), 0o755)
	h.refused("write_file", map[string]any{"path": "dir", "content": "x"}, "is a directory")
	h.refused("write_file", map[string]any{"path": "../x", "content": "x"}, "path escapes the workspace")
	h.refused("write_file", map[string]any{"path": "   ", "content": "x"}, "path is empty") // not a file named three spaces
	h.refused("write_file", map[string]any{"path": "big", "content": strings.Repeat("x", 1025)}, "over the 1024-byte limit (STEERABLE_FILE_MAX_BYTES)")
	h.refused("write_file", map[string]any{"path": "f", "content": "x", "expectedVersion": "nope"}, "/expectedVersion")
	if diff := cmp.Diff([]string{"dir"}, h.entries()); diff != "" {
		t.Errorf("refused writes left files behind (-want +got):\n%s", diff)
	}
}
