package tools

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestGates walks the gates of SPEC §4.1 and their order: each case sets up
// the file and the session, then writes; want is "" for success or the
// refusal's data.code.
func TestGates(t *testing.T) {
	const orig, other = "original\nline 2\n", "changed elsewhere\n"
	type setup func(h *fileHarness)
	read := func(h *fileHarness) { h.read("f.txt") }
	readRange := func(h *fileHarness) { h.ok("read_file", map[string]any{"path": "f.txt", "offset": 2}) }
	changeOnDisk := func(h *fileHarness) { h.write("f.txt", other) }
	remove := func(h *fileHarness) { os.Remove(h.abs("f.txt")) }
	write := func(expected string) map[string]any {
		a := map[string]any{"path": "f.txt", "content": "new\n"}
		if expected != "" {
			a["expectedVersion"] = expected
		}
		return a
	}
	edit := func(expected string) map[string]any {
		a := map[string]any{"path": "f.txt", "edits": []any{map[string]any{"oldText": "line 2", "newText": "LINE 2"}}}
		if expected != "" {
			a["expectedVersion"] = expected
		}
		return a
	}
	tests := []struct {
		name   string
		noFile bool
		steps  []setup
		tool   string
		args   map[string]any
		gateOn bool
		want   string
	}{
		{"new file: never gated", true, nil, "write_file", write(""), true, ""},
		{"new file with expectedVersion: conflict", true, nil, "write_file", write(version(orig)), true, "conflict"},
		{"unread file: hard gate", false, nil, "write_file", write(""), true, "not_read"},
		{"unread file: edit gated too", false, nil, "edit_file", edit(""), true, "not_read"},
		{"unread file, gate off", false, nil, "write_file", write(""), false, ""},
		{"unread file, right expectedVersion replaces the hard gate", false, nil, "write_file", write(version(orig)), true, ""},
		{"unread file, wrong expectedVersion: conflict first", false, nil, "write_file", write(version(other)), true, "conflict"},
		{"read file: write passes", false, []setup{read}, "write_file", write(""), true, ""},
		{"read, wrong expectedVersion: conflict", false, []setup{read}, "edit_file", edit(version(other)), true, "conflict"},
		{"partial read: whole write refused", false, []setup{readRange}, "write_file", write(""), true, "partial_read"},
		{"partial read: edit allowed", false, []setup{readRange}, "edit_file", edit(""), true, ""},
		{"partial read: expectedVersion keeps the partial gate", false, []setup{readRange}, "write_file", write(version(orig)), true, "partial_read"},
		{"partial read, then full read: flag cleared", false, []setup{readRange, read}, "write_file", write(""), true, ""},
		{"partial read, changed on disk: partial gate before CAS", false, []setup{readRange, changeOnDisk}, "write_file", write(""), true, "partial_read"},
		{"changed since read: auto-CAS conflict", false, []setup{read, changeOnDisk}, "write_file", write(""), true, "conflict"},
		{"changed since read: edit conflict", false, []setup{read, changeOnDisk}, "edit_file", edit(""), true, "conflict"},
		{"changed since read, gate off: CAS still holds", false, []setup{read, changeOnDisk}, "write_file", write(""), false, "conflict"},
		{"changed since read, expectedVersion of the new content passes", false, []setup{read, changeOnDisk}, "write_file", write(version(other)), true, ""},
		{"vanished since read: a plain create", false, []setup{read, remove}, "write_file", write(""), true, ""},
		{"vanished since read, expectedVersion: conflict", false, []setup{read, remove}, "write_file", write(version(orig)), true, "conflict"},
	}
	partialAfter := map[string]bool{"partial read: edit allowed": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h *fileHarness
			if tt.gateOn {
				h = newFileHarness(t)
			} else {
				h = newFileHarness(t, noReadGate)
			}
			if !tt.noFile {
				h.write("f.txt", orig)
			}
			for _, s := range tt.steps {
				s(h)
			}
			before, _ := os.ReadFile(h.abs("f.txt"))
			res := h.call(tt.tool, tt.args)
			if tt.want == "" {
				if !res.Success {
					t.Fatalf("refused: %s", res.Error)
				}
				// An edit keeps a partial view partial; a whole write clears it.
				wantPartial := partialAfter[tt.name]
				if e, _ := h.state.Get(h.abs("f.txt")); e.Version != res.Data["version"] || e.Partial != wantPartial {
					t.Errorf("state after the write = %+v, want version %v, partial %v", e, res.Data["version"], wantPartial)
				}
				return
			}
			if res.Success || !res.NeedsFollowup || res.Data["code"] != tt.want {
				t.Fatalf("result = %+v, want a follow-up with code %s", res, tt.want)
			}
			if after, _ := os.ReadFile(h.abs("f.txt")); string(after) != string(before) {
				t.Errorf("a refused write changed the file: %q", after)
			}
		})
	}
}

func TestConflictData(t *testing.T) {
	h := newFileHarness(t)
	h.write("f.txt", "one\n")
	h.read("f.txt")
	h.write("f.txt", "two\n")
	res := h.refused("write_file", map[string]any{"path": "f.txt", "content": "three\n"}, "conflict")
	want := map[string]any{"path": h.abs("f.txt"), "code": "conflict", "expectedVersion": version("one\n"), "actualVersion": version("two\n")}
	if diff := cmp.Diff(want, res.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	res = h.refused("write_file", map[string]any{"path": "nope.txt", "content": "x", "expectedVersion": version("x")}, "does not exist")
	if res.Data["actualVersion"] != nil || res.Data["expectedVersion"] != version("x") {
		t.Errorf("missing-file conflict data = %v", res.Data)
	}
}

// TestTouchIsNoConflict: the token is a content hash, so a touch (new mtime,
// same bytes) does not invalidate the read.
func TestTouchIsNoConflict(t *testing.T) {
	h := newFileHarness(t)
	h.write("f.txt", "same\n")
	h.read("f.txt")
	future := time.Now().Add(time.Hour)
	os.Chtimes(h.abs("f.txt"), future, future)
	h.ok("edit_file", map[string]any{"path": "f.txt", "edits": []any{map[string]any{"oldText": "same", "newText": "new"}}})
}

// TestPartialViewSurvivesEdits is the data-loss case: read a
// file over 100,000 characters (partial), change one line with edit_file or
// apply_patch, then overwrite it whole with write_file. The whole write
// must still be refused (the middle was never seen), with the file intact;
// after a full read it goes through.
func TestPartialViewSurvivesEdits(t *testing.T) {
	big := "first line\n" + strings.Repeat("unseen middle line\n", 10_000) + "last line\n"
	changes := map[string]func(h *fileHarness){
		"edit_file": func(h *fileHarness) {
			h.ok("edit_file", map[string]any{"path": "big.txt", "edits": edits("first line", "FIRST line")})
		},
		"apply_patch": func(h *fileHarness) {
			h.ok("apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: big.txt\n-first line\n+FIRST line\n*** End Patch"})
		},
		"apply_patch move": func(h *fileHarness) {
			h.ok("apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: big.txt\n*** Move to: moved.txt\n-first line\n+FIRST line\n*** End Patch"})
			h.ok("apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: moved.txt\n*** Move to: big.txt\n-last line\n+last line\n*** End Patch"})
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			h := newFileHarness(t)
			h.write("big.txt", big)
			if res := h.ok("read_file", map[string]any{"path": "big.txt"}); res.Data["partial"] != true {
				t.Fatal("the read is not partial")
			}
			change(h)
			edited := h.content("big.txt")
			res := h.refused("write_file", map[string]any{"path": "big.txt", "content": "overwritten\n"}, "only part of")
			if res.Data["code"] != codePartialRead || h.content("big.txt") != edited {
				t.Fatalf("code %v; the file changed: %v", res.Data["code"], h.content("big.txt") != edited)
			}
			h.ok("read_file", map[string]any{"path": "big.txt", "offset": 1, "limit": 5}) // still partial
			h.refused("write_file", map[string]any{"path": "big.txt", "content": "overwritten\n"}, "only part of")
			h.write("big.txt", "small now\n") // a full read clears the flag
			h.read("big.txt")
			h.ok("write_file", map[string]any{"path": "big.txt", "content": "overwritten\n"})
			if e, _ := h.state.Get(h.abs("big.txt")); e.Partial {
				t.Error("a write_file the gates allowed left the flag set")
			}
		})
	}
}
