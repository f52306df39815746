package tools

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func patch(lines ...string) map[string]any {
	return map[string]any{"patch": strings.Join(append(append([]string{"*** Begin Patch"}, lines...), "*** End Patch"), "\n")}
}

func TestApplyPatch(t *testing.T) {
	h := newFileHarness(t)
	h.write("src/app.go", "package app\r\n\r\nfunc A() {}\r\n")
	os.Chmod(h.abs("src/app.go"), 0o755)
	h.write("old/unused.go", "package old\n")
	h.write("keep.txt", "one\ntwo\nthree\n")
	for _, f := range []string{"src/app.go", "old/unused.go", "keep.txt"} {
		h.read(f)
	}
	res := h.ok("apply_patch", patch(
		"*** Add File: docs/new.md",
		"+# New",
		"*** Delete File: old/unused.go",
		"*** Update File: src/app.go",
		"*** Move to: src/main.go",
		"@@",
		"-package app",
		"+package main",
		"*** Update File: keep.txt",
		" two",
		"-three",
		"+THREE",
		"*** End of File",
	))
	wantFiles := map[string]string{"docs/new.md": "# New\n", "src/main.go": "package main\r\n\r\nfunc A() {}\r\n", "keep.txt": "one\ntwo\nTHREE\n"}
	for f, want := range wantFiles {
		if got := h.content(f); got != want {
			t.Errorf("%s = %q, want %q", f, got, want)
		}
	}
	if h.exists("old/unused.go") || h.exists("src/app.go") {
		t.Error("deleted or moved-away files still exist")
	}
	if fi, _ := os.Stat(h.abs("src/main.go")); fi.Mode().Perm() != 0o755 {
		t.Errorf("moved file mode = %v", fi.Mode())
	}
	wantVersions := map[string]any{}
	for f, c := range wantFiles {
		wantVersions[h.abs(f)] = version(c)
	}
	if diff := cmp.Diff(wantVersions, res.Data["versions"]); diff != "" {
		t.Errorf("versions (-want +got):\n%s", diff)
	}
	wantList := []any{
		map[string]any{"path": h.abs("docs/new.md"), "op": "add"},
		map[string]any{"path": h.abs("old/unused.go"), "op": "delete"},
		map[string]any{"path": h.abs("src/main.go"), "op": "move", "from": h.abs("src/app.go")},
		map[string]any{"path": h.abs("keep.txt"), "op": "update"},
	}
	if diff := cmp.Diff(wantList, res.Data["files"]); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for _, frag := range []string{"--- /dev/null\n+++ b/docs/new.md\n", "--- a/old/unused.go\n+++ /dev/null\n", "--- a/src/app.go\n+++ b/src/main.go\n", "-three\n+THREE\n"} {
		if !strings.Contains(res.Data["diff"].(string), frag) {
			t.Errorf("diff lacks %q:\n%s", frag, res.Data["diff"])
		}
	}
	// The read state follows: written files at their new version, the
	// deleted and moved-away ones forgotten.
	want := map[string]string{}
	for p, v := range wantVersions {
		want[p] = v.(string)
	}
	if diff := cmp.Diff(want, h.state.Snapshot()); diff != "" {
		t.Errorf("read state (-want +got):\n%s", diff)
	}
	h.ok("apply_patch", patch("*** Update File: keep.txt", "@@", "-one", "+ONE")) // no re-read needed after an own write
}

func TestApplyPatchPureRename(t *testing.T) {
	h := newFileHarness(t)
	h.write("a.txt", "x\n")
	h.read("a.txt")
	res := h.ok("apply_patch", patch("*** Update File: a.txt", "*** Move to: b/a.txt"))
	if h.exists("a.txt") || h.content("b/a.txt") != "x\n" || res.Data["versions"].(map[string]any)[h.abs("b/a.txt")] != version("x\n") {
		t.Errorf("rename: %v", res.Data)
	}
}

// TestApplyPatchIsAllOrNothing: a failure in any file, found while planning
// or while writing, leaves every file as it was and nothing behind.
func TestApplyPatchIsAllOrNothing(t *testing.T) {
	tests := []struct {
		name  string
		patch map[string]any
		want  string
	}{
		{"second hunk does not match", patch("*** Update File: a.txt", "-a", "+A", "*** Update File: b.txt", "-zzz", "+y"), "do not match the file"},
		{"add of an existing file", patch("*** Update File: a.txt", "-a", "+A", "*** Add File: b.txt", "+x"), "already exists"},
		{"delete of a missing file", patch("*** Delete File: a.txt", "*** Delete File: nope.txt"), "does not exist"},
		{"update of a missing file", patch("*** Add File: n.txt", "+n", "*** Update File: nope.txt", "-a", "+b"), "create it with \"*** Add File: nope.txt\""},
		{"move onto an existing file", patch("*** Update File: a.txt", "*** Move to: b.txt"), "the destination exists"},
		{"unread file", patch("*** Update File: a.txt", "-a", "+A", "*** Update File: unread.txt", "-u", "+U"), "never read in this session"},
		{"same file twice", patch("*** Update File: a.txt", "-a", "+A", "*** Delete File: ./a.txt"), "is already changed at line 2"},
		{"path escape", patch("*** Add File: ok.txt", "+x", "*** Add File: ../evil.txt", "+x"), "path escapes the workspace"},
		{"a path below a file", patch("*** Update File: a.txt", "-a", "+A", "*** Add File: b.txt/child", "+x"), "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFileHarness(t)
			h.write("a.txt", "a\n")
			h.write("b.txt", "b\n")
			h.write("unread.txt", "u\n")
			h.read("a.txt")
			h.read("b.txt")
			before := h.entries()
			h.refused("apply_patch", tt.patch, tt.want)
			if diff := cmp.Diff(before, h.entries()); diff != "" {
				t.Errorf("tree changed (-before +after):\n%s", diff)
			}
			if h.content("a.txt") != "a\n" || h.content("b.txt") != "b\n" {
				t.Error("a file changed")
			}
		})
	}
}

func TestApplyPatchParseErrors(t *testing.T) {
	h := newFileHarness(t)
	h.refused("apply_patch", map[string]any{"patch": ""}, "the patch is empty")
	h.refused("apply_patch", map[string]any{"patch": "*** Begin Patch\n*** End Patch"}, "changes no file")
	h.refused("apply_patch", map[string]any{"patch": "diff --git a/x b/x"}, `line 1: expected "*** Begin Patch"`)
}
