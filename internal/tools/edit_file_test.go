package tools

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

func edits(pairs ...string) []any {
	var out []any
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, map[string]any{"oldText": pairs[i], "newText": pairs[i+1]})
	}
	return out
}

func TestEditFile(t *testing.T) {
	h := newFileHarness(t)
	orig := "\ufeffpackage main\r\n\r\nfunc main() {\r\n\tprintln(“hi”)\r\n}\r\n"
	h.write("main.go", orig)
	os.Chmod(h.abs("main.go"), 0o600)
	h.read("main.go")
	res := h.ok("edit_file", map[string]any{"path": "main.go", "edits": edits(
		"package main\n", "package app\n",
		`println("hi")`, `println("bye")`,
	)})
	want := "\ufeffpackage app\r\n\r\nfunc main() {\r\n\tprintln(\"bye\")\r\n}\r\n"
	if got := h.content("main.go"); got != want {
		t.Fatalf("content = %q, want %q", got, want)
	}
	if fi, _ := os.Stat(h.abs("main.go")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode())
	}
	wantData := map[string]any{
		"path": h.abs("main.go"), "version": version(want), "applied": json.Number("2"),
		"matches": []any{
			map[string]any{"index": json.Number("0"), "level": "exact", "line": json.Number("1")},
			map[string]any{"index": json.Number("1"), "level": "unicode", "line": json.Number("4")},
		},
		"diff": "--- a/main.go\n+++ b/main.go\n@@ -1,5 +1,5 @@\n-\ufeffpackage main\r\n+\ufeffpackage app\r\n \r\n func main() {\r\n-\tprintln(“hi”)\r\n+\tprintln(\"bye\")\r\n }\r\n",
	}
	if diff := cmp.Diff(wantData, res.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	// The state follows the own write: the next edit needs no re-read.
	h.ok("edit_file", map[string]any{"path": "main.go", "edits": edits("app", "lib")})
}

func TestEditFileErrors(t *testing.T) {
	h := newFileHarness(t)
	h.write("f.txt", "a\nb\na\n")
	h.read("f.txt")
	tests := []struct {
		name  string
		edits []any
		code  string
		data  map[string]any
	}{
		{"no edits", []any{}, "no_edits", nil},
		{"empty oldText", edits("", "x"), "empty_old", map[string]any{"index": json.Number("0")}},
		{"not found", edits("b", "B", "zzz", "y"), "not_found", map[string]any{"index": json.Number("1")}},
		{"ambiguous", edits("a\n", "x"), "ambiguous", map[string]any{"index": json.Number("0"), "count": json.Number("2"), "lines": []any{json.Number("1"), json.Number("3")}, "level": "exact"}},
		{"overlap", edits("a\nb", "x", "b\na", "y"), "overlap", map[string]any{"index": json.Number("1"), "other": json.Number("0")}},
	}
	for _, tt := range tests {
		res := h.call("edit_file", map[string]any{"path": "f.txt", "edits": tt.edits})
		if res.Success || !res.NeedsFollowup {
			t.Fatalf("%s: %+v", tt.name, res)
		}
		want := map[string]any{"path": h.abs("f.txt"), "code": tt.code}
		for k, v := range tt.data {
			want[k] = v
		}
		if diff := cmp.Diff(want, res.Data); diff != "" {
			t.Errorf("%s: data (-want +got):\n%s", tt.name, diff)
		}
	}
	if got := h.content("f.txt"); got != "a\nb\na\n" {
		t.Errorf("refused edits changed the file: %q", got)
	}
	h.refused("edit_file", map[string]any{"path": "missing.txt", "edits": edits("a", "b")}, "does not exist; create it with write_file")
	h.write("bin", "\x00\x01")
	h.refused("edit_file", map[string]any{"path": "bin", "edits": edits("a", "b")}, "not a text file")
}

func TestEditFileSizeLimit(t *testing.T) {
	h := newFileHarness(t, maxBytes(1024))
	h.write("f.txt", "a"+strings.Repeat("x", 999))
	h.read("f.txt")
	h.refused("edit_file", map[string]any{"path": "f.txt", "edits": edits("a", strings.Repeat("y", 100))}, "over the 1024-byte limit")
	h.write("huge.txt", strings.Repeat("x", 2000))
	h.refused("edit_file", map[string]any{"path": "huge.txt", "edits": edits("xxx", "y")}, "STEERABLE_FILE_MAX_BYTES")
}

func TestEditFileBlankPath(t *testing.T) {
	h := newFileHarness(t)
	h.refused("edit_file", map[string]any{"path": "  ", "edits": edits("a", "b")}, "path is empty")
}

// TestEditFileStopsWhenCancelled: a cancelled call stops matching, writes
// nothing and releases the file's lock (the next call on it goes through).
func TestEditFileStopsWhenCancelled(t *testing.T) {
	h := newFileHarness(t)
	content := strings.Repeat("\tsame line\n", 100_000)
	h.write("same.txt", content)
	h.read("same.txt")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	old := strings.Repeat("\tsame line\n", 1000) + "other"
	args, _ := json.Marshal(map[string]any{"path": "same.txt", "edits": edits(old, "x")})
	res := h.d.Dispatch(ctx, Invocation{ToolCall: protocol.ToolCall{Name: "edit_file", Arguments: args}})
	if res.Success || !strings.Contains(res.Error, "cancelled") || h.content("same.txt") != content {
		t.Fatalf("cancelled edit = %+v", res)
	}
	done := make(chan protocol.ToolResult)
	go func() {
		done <- h.call("edit_file", map[string]any{"path": "same.txt", "edits": edits("same line\n\tsame line\n\tsame line\n\tsame line\n", "x")})
	}()
	select {
	case res := <-done:
		if res.Data["code"] != "ambiguous" {
			t.Errorf("next edit = %+v", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the file's lock is still held")
	}
}
