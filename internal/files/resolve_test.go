package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTree builds a workspace with a sub directory, a file and symlinks that
// stay inside, point out, chain, dangle and loop, plus a directory outside
// it. Paths in it are real (t.TempDir may itself sit behind a symlink).
func newTree(t testing.TB, confine bool) (*Workspace, string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws + "/sub/deep", out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(ws+"/sub/f.txt", []byte("f\n"), 0o644)
	os.WriteFile(out+"/secret", []byte("s\n"), 0o644)
	links := map[string]string{
		"in":          "sub",
		"in_abs":      ws + "/sub",
		"out_abs":     out,
		"out_rel":     "../outside",
		"sub/up":      "..",
		"sub/upup":    "../..",
		"chain":       "in",
		"chain_out":   "sub/upup",
		"dangling":    "sub/new.txt",
		"dangling_up": "../outside/new.txt",
		"loop":        "loop2",
		"loop2":       "loop",
		"file_link":   "sub/f.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	return openWorkspace(t, ws, confine), base
}

func TestResolve(t *testing.T) {
	w, base := newTree(t, true)
	ws := base + "/ws"
	tests := []struct {
		in   string
		want string // "" = refused with wantErr
		err  error
	}{
		{"sub/f.txt", ws + "/sub/f.txt", nil},
		{"./sub//f.txt", ws + "/sub/f.txt", nil},
		{ws + "/sub/f.txt", ws + "/sub/f.txt", nil},
		{"new/dir/file.txt", ws + "/new/dir/file.txt", nil},
		{"in/f.txt", ws + "/sub/f.txt", nil},
		{"in_abs/f.txt", ws + "/sub/f.txt", nil},
		{"chain/deep/../f.txt", ws + "/sub/f.txt", nil},
		{"file_link", ws + "/sub/f.txt", nil},
		{"sub/up/sub/f.txt", ws + "/sub/f.txt", nil},
		{"dangling", ws + "/sub/new.txt", nil},
		{".", ws, nil},
		{"sub/..", ws, nil},
		{"in/..", ws, nil}, // ".." applies to the link's target (sub), as in the kernel
		{"../outside/secret", "", ErrEscapes},
		{"sub/../../outside/secret", "", ErrEscapes},
		{base + "/outside/secret", "", ErrEscapes},
		{"/etc/passwd", "", ErrEscapes},
		{"out_abs/secret", "", ErrEscapes},
		{"out_rel/secret", "", ErrEscapes},
		{"sub/upup/outside/secret", "", ErrEscapes},
		{"chain_out/outside/x", "", ErrEscapes},
		{"dangling_up", "", ErrEscapes},
		{"..", "", ErrEscapes},
		{"", "", ErrInvalidPath},
		{"   ", "", ErrInvalidPath},
		{"\t\n", "", ErrInvalidPath},
		{"a\x00b", "", ErrInvalidPath},
		{"loop", "", ErrInvalidPath},
		{"sub/f.txt/x", "", ErrInvalidPath},          // a file used as a directory
		{"missing/../sub/f.txt", "", ErrInvalidPath}, // ".." below a missing directory
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := w.Resolve(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Resolve(%q) = %q, %v; want %v", tt.in, got, err, tt.err)
				}
				if tt.err == ErrEscapes && !strings.Contains(err.Error(), "path escapes the workspace "+ws) {
					t.Errorf("error %q does not name the workspace", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestResolveUnconfined(t *testing.T) {
	w, base := newTree(t, false)
	for in, want := range map[string]string{
		"out_abs/secret":    base + "/outside/secret",
		"../outside/secret": base + "/outside/secret",
		"dangling_up":       base + "/outside/new.txt",
	} {
		if got, err := w.Resolve(in); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	b, _, err := w.ReadFile(base+"/outside/secret", 100)
	if err != nil || string(b) != "s\n" {
		t.Errorf("unconfined read outside = %q, %v", b, err)
	}
}

// TestRootRefusesEscapesAtUseTime: even a path that slipped past Resolve
// (a directory swapped for a symlink after resolution) cannot be used to
// leave a confined workspace.
func TestRootRefusesEscapesAtUseTime(t *testing.T) {
	w, base := newTree(t, true)
	if _, _, err := w.OpenRead(base + "/ws/out_rel/secret"); err == nil {
		t.Error("OpenRead through an escaping symlink succeeded")
	}
	if _, err := w.WriteFile(base+"/ws/out_abs/planted", "x"); err == nil {
		t.Error("WriteFile through an escaping symlink succeeded")
	}
	if _, err := os.Stat(base + "/outside/planted"); err == nil {
		t.Error("a file was planted outside the workspace")
	}
}

// FuzzResolve: no input may panic the resolver or yield a path outside the
// workspace, and what it returns has no symlink left in it.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"sub/f.txt", "../x", "/etc/passwd", "in/../..", "chain_out/a", "loop/x", "a\x00", "sub/up/up/up", "dangling_up/x", "//", "...", "sub/./f.txt/"} {
		f.Add(s)
	}
	w, base := newTree(f, true)
	ws := base + "/ws"
	f.Fuzz(func(t *testing.T, p string) {
		got, err := w.Resolve(p)
		if err != nil {
			return
		}
		if !Within(ws, got) || filepath.Clean(got) != got {
			t.Fatalf("Resolve(%q) = %q: outside %s or not clean", p, got, ws)
		}
		for d := got; d != ws; d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				t.Fatalf("Resolve(%q) = %q still holds the symlink %s", p, got, d)
			}
		}
	})
}
