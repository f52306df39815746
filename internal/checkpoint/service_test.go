package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

type fixture struct {
	dir   string
	ws    *files.Workspace
	store *Store
	svc   *Service
	state *readstate.Store
}

func newFixture(t *testing.T, opt Options) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, t.TempDir(), opt)
	ws, err := files.Open(dir, true, files.WithRecorder(st))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	state := readstate.NewStore()
	return &fixture{dir: dir, ws: ws, store: st, svc: NewService(st, ws, state), state: state}
}

func (f *fixture) path(rel string) string { return filepath.Join(f.dir, rel) }

func (f *fixture) toolWrite(t *testing.T, call, rel, data string) {
	t.Helper()
	if _, err := f.ws.WriteFileAs(files.Origin{CallID: call, Tool: "write_file"}, f.path(rel), data, nil); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(f.path(rel))
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

func TestRestoreTurn(t *testing.T) {
	f := newFixture(t, Options{})
	os.WriteFile(f.path("crlf.txt"), []byte("\ufeffone\r\ntwo\r\n"), 0o755)
	os.WriteFile(f.path("gone.txt"), []byte("keep me\n"), 0o600)
	cp, err := f.svc.Create("turn 1")
	if err != nil {
		t.Fatal(err)
	}
	f.toolWrite(t, "c1", "crlf.txt", "rewritten\n")
	f.toolWrite(t, "c2", "sub/new.txt", "new\n")
	if err := f.ws.CommitAs(files.Origin{CallID: "c3", Tool: "apply_patch"}, []files.Change{{Path: f.path("gone.txt"), Delete: true, Exists: true}}); err != nil {
		t.Fatal(err)
	}
	if got := f.svc.List().Checkpoints[0].Changed; !slices.Equal(got, []string{"crlf.txt", filepath.Join("sub", "new.txt"), "gone.txt"}) {
		t.Errorf("changed = %v", got)
	}
	d, err := f.svc.Diff(protocol.CheckpointDiffParams{From: cp.ID})
	if err != nil || !strings.Contains(d.Diff, "+rewritten") || !strings.Contains(d.Diff, "--- a/gone.txt\n+++ /dev/null") {
		t.Errorf("diff = %q, %v", d.Diff, err)
	}
	res, err := f.svc.Restore(context.Background(), protocol.CheckpointRestoreParams{ID: cp.ID})
	if err != nil || len(res.Restored) != 3 || len(res.Conflicted) != 0 {
		t.Fatalf("restore = %+v, %v", res, err)
	}
	if got := f.read(t, "crlf.txt"); got != "\ufeffone\r\ntwo\r\n" {
		t.Errorf("crlf.txt = %q", got)
	}
	if fi, _ := os.Stat(f.path("crlf.txt")); fi.Mode().Perm() != 0o755 {
		t.Errorf("crlf.txt mode %v", fi.Mode())
	}
	if got := f.read(t, "sub/new.txt"); got != "<absent>" {
		t.Errorf("created file is back: %q", got)
	}
	if fi, err := os.Stat(f.path("gone.txt")); err != nil || fi.Mode().Perm() != 0o600 || f.read(t, "gone.txt") != "keep me\n" {
		t.Errorf("deleted file not back: %v %v", fi, err)
	}
	if e, ok := f.state.Get(f.path("crlf.txt")); !ok || e.Version != readstate.OfString("\ufeffone\r\ntwo\r\n") {
		t.Errorf("read state after restore = %+v, %v", e, ok)
	}
	// Undo of the undo: the turn's edits are back.
	if _, err := f.svc.Undo(context.Background(), protocol.ToolUndoParams{CallID: res.CallID}); err != nil {
		t.Fatal(err)
	}
	if f.read(t, "crlf.txt") != "rewritten\n" || f.read(t, "sub/new.txt") != "new\n" || f.read(t, "gone.txt") != "<absent>" {
		t.Errorf("undo of the restore did not bring the edits back")
	}
}

func TestUndoConflictsAndForce(t *testing.T) {
	tests := []struct {
		name     string
		after    func(f *fixture, t *testing.T) // what happens after the calls
		undo     string
		force    bool
		conflict bool
		want     string
	}{
		{"middle call", nil, "c2", false, false, "two\n"},
		{"user edited the file", func(f *fixture, t *testing.T) { os.WriteFile(f.path("b.txt"), []byte("user\n"), 0o644) }, "c2", false, true, "user\n"},
		{"forced over the user's edit", func(f *fixture, t *testing.T) { os.WriteFile(f.path("b.txt"), []byte("user\n"), 0o644) }, "c2", true, false, "two\n"},
		{"a later call changed it", func(f *fixture, t *testing.T) { f.toolWrite(t, "c9", "b.txt", "later\n") }, "c2", false, true, "later\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.toolWrite(t, "c1", "a.txt", "one\n")
			f.toolWrite(t, "c1b", "b.txt", "two\n")
			f.toolWrite(t, "c2", "b.txt", "three\n")
			f.toolWrite(t, "c3", "a.txt", "four\n")
			if tt.after != nil {
				tt.after(f, t)
			}
			res, err := f.svc.Undo(context.Background(), protocol.ToolUndoParams{CallID: tt.undo, Force: tt.force})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Conflicted) == 1; got != tt.conflict {
				t.Errorf("conflicted = %+v, want conflict %v", res.Conflicted, tt.conflict)
			}
			if got := f.read(t, "b.txt"); got != tt.want {
				t.Errorf("b.txt = %q, want %q", got, tt.want)
			}
			if got := f.read(t, "a.txt"); got != "four\n" {
				t.Errorf("a.txt = %q: undo of c2 touched another call's file", got)
			}
		})
	}
}

func TestRestoreNotKeptAndCommands(t *testing.T) {
	f := newFixture(t, Options{KeepLimit: 1024})
	os.WriteFile(f.path("big.txt"), []byte(strings.Repeat("x", 2048)), 0o644)
	cp, _ := f.svc.Create("")
	f.toolWrite(t, "c1", "big.txt", "small now\n")
	f.store.CommandRan("bash")
	res, err := f.svc.Restore(context.Background(), protocol.CheckpointRestoreParams{ID: cp.ID})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.NotKept, []string{"big.txt"}) || len(res.Restored) != 0 || !res.CommandsRan || res.Note == "" {
		t.Errorf("restore = %+v", res)
	}
	if _, err := f.svc.Restore(context.Background(), protocol.CheckpointRestoreParams{ID: "cp-999"}); err == nil {
		t.Error("unknown checkpoint accepted")
	}
	if _, err := f.svc.Undo(context.Background(), protocol.ToolUndoParams{CallID: "nope"}); err == nil {
		t.Error("unknown call accepted")
	}
}

// A record naming a path outside the workspace (a store forged or carried
// over from another layout) never makes a restore touch that path: the
// workspace's confinement refuses it like any tool write.
func TestRestoreForgedRecordOutsideWorkspace(t *testing.T) {
	f := newFixture(t, Options{})
	outside := filepath.Join(filepath.Dir(f.dir), filepath.Base(f.dir)+"-outside.txt")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(outside) })
	c, err := f.store.Create("forged")
	if err != nil {
		t.Fatal(err)
	}
	// "The tools created it": a restore would remove it.
	f.store.Record(files.Origin{CallID: "forged", Tool: "write_file"}, []files.Written{{Path: outside,
		After: files.Side{Exists: true, Data: "precious\n", Mode: 0o644}}})
	for name, restore := range map[string]func() (protocol.RestoreResult, error){
		"checkpoint.restore": func() (protocol.RestoreResult, error) {
			return f.svc.Restore(context.Background(), protocol.CheckpointRestoreParams{ID: c.ID, Force: true})
		},
		"tool.undo": func() (protocol.RestoreResult, error) {
			return f.svc.Undo(context.Background(), protocol.ToolUndoParams{CallID: "forged", Force: true})
		},
	} {
		res, err := restore()
		t.Logf("%s: %+v, %v", name, res, err)
		if err != nil || len(res.Restored) > 0 || len(res.Conflicted) != 1 || !strings.Contains(res.Conflicted[0].Reason, "escapes") {
			t.Errorf("%s: %+v, %v; want the path refused as escaping the workspace", name, res, err)
		}
		if b, _ := os.ReadFile(outside); string(b) != "precious\n" {
			t.Fatalf("%s changed %s: %q", name, outside, b)
		}
	}
}
