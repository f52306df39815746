package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/exectest"
	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// The attack: the model plants a program where the sidecar's PATH looks
// first — the workspace's .venv/bin, a directory it can make writable, a
// relative entry — and the sidecar runs it with its own rights at the next
// start. LookTrusted passes every such entry over, says why, and resolves
// to the trusted copy behind it.
func TestLookTrustedSkipsWhatTheModelCanPlant(t *testing.T) {
	const name = "sbx-trusted-prog" // in no system directory
	ws, tmp, base := sandboxtest.RealTempDir(t), sandboxtest.RealTempDir(t), sandboxtest.RealTempDir(t)
	prog := func(dir string, mode os.FileMode) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o755)
		p := filepath.Join(dir, name)
		if err := exectest.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := prog(filepath.Join(base, "good"), 0o755)
	goodDir := filepath.Dir(good)
	venv := filepath.Dir(prog(filepath.Join(ws, ".venv", "bin"), 0o755))
	prog(ws, 0o755) // what the empty entry finds
	inTmp := filepath.Dir(prog(filepath.Join(tmp, "bin"), 0o755))
	groupDir := filepath.Dir(prog(filepath.Join(base, "group"), 0o755))
	os.Chmod(groupDir, 0o775)
	worldFile := filepath.Dir(prog(filepath.Join(base, "world"), 0o757))
	noExec := filepath.Dir(prog(filepath.Join(base, "noexec"), 0o644))
	linkDir := filepath.Join(base, "link")
	os.MkdirAll(linkDir, 0o755)
	os.Symlink(filepath.Join(venv, name), filepath.Join(linkDir, name)) // a trusted dir's entry into the workspace
	wsLinkDir := filepath.Join(ws, "linkbin")
	os.MkdirAll(wsLinkDir, 0o755)
	os.Symlink(good, filepath.Join(wsLinkDir, name)) // the workspace's entry to a trusted file
	goodLinkDir := filepath.Join(base, "goodlink")
	os.MkdirAll(goodLinkDir, 0o755)
	os.Symlink(good, filepath.Join(goodLinkDir, name))
	viaLink := filepath.Join(base, "ws-link")
	os.Symlink(ws, viaLink) // the workspace reached through a symlink

	type tc struct {
		name     string
		path     []string
		want     string // the resolved program; "" none
		skipWord string // in the note of the first entry skipped
	}
	cases := []tc{
		{"a trusted directory", []string{goodDir}, good, ""},
		{"a symlink in a trusted directory resolves to its target", []string{goodLinkDir}, good, ""},
		{"planted in the workspace", []string{venv, goodDir}, good, "lies in a writable root"},
		{"planted in the workspace reached through a symlink", []string{filepath.Join(viaLink, ".venv", "bin"), goodDir}, good, "lies in a writable root"},
		{"planted in another writable root", []string{inTmp, goodDir}, good, "lies in a writable root"},
		{"a group-writable directory", []string{groupDir, goodDir}, good, "group- or world-writable"},
		{"a world-writable file", []string{worldFile, goodDir}, good, "group- or world-writable"},
		{"a file that is not executable", []string{noExec, goodDir}, good, "is not executable"},
		{"a symlink from a trusted directory into the workspace", []string{linkDir, goodDir}, good, "lies in a writable root"},
		{"the workspace's symlink to a trusted file", []string{wsLinkDir, goodDir}, good, "lies in a writable root"},
		{"a relative entry", []string{".venv/bin", goodDir}, good, "is relative"},
		{"an empty entry (the cwd)", []string{"", goodDir}, good, "is relative"},
		{"nothing trusted", []string{venv, groupDir}, "", "lies in a writable root"},
	}
	if os.Geteuid() == 0 {
		other := filepath.Dir(prog(filepath.Join(base, "other"), 0o755))
		if err := os.Chown(filepath.Join(other, name), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		otherDir := filepath.Join(base, "otherdir")
		prog(otherDir, 0o755)
		if err := os.Chown(otherDir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{"a file of another user", []string{other, goodDir}, good, "owned by uid 65534"},
			tc{"a directory of another user", []string{otherDir, goodDir}, good, "owned by uid 65534"})
	}
	t.Chdir(ws) // the relative entries and the empty one name the workspace
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, skipped, err := LookTrusted(name, strings.Join(c.path, string(os.PathListSeparator)), []string{ws, tmp})
			if got != c.want || (err == nil) != (c.want != "") {
				t.Errorf("LookTrusted = %q, %v; want %q", got, err, c.want)
			}
			if c.skipWord == "" {
				if len(skipped) > 0 {
					t.Errorf("skipped %q", skipped)
				}
				return
			}
			if len(skipped) == 0 || !strings.Contains(skipped[0], c.skipWord) {
				t.Errorf("skipped %q, want a note with %q", skipped, c.skipWord)
			}
		})
	}
}

// A configured program path (STEERABLE_BWRAP_PATH) gets the same checks.
func TestCheckTrustedRefusesAConfiguredPathInARoot(t *testing.T) {
	ws := sandboxtest.RealTempDir(t)
	planted := filepath.Join(ws, "bwrap")
	exectest.WriteFile(planted, []byte("#!/bin/sh\n"), 0o755)
	if _, err := CheckTrusted(planted, []string{ws}); err == nil || !strings.Contains(err.Error(), "writable root") {
		t.Errorf("CheckTrusted(%s) = %v", planted, err)
	}
	if _, err := CheckTrusted("bwrap", nil); err == nil {
		t.Error("a relative path was trusted")
	}
	if b := newBwrapIn(planted, []string{ws}); b.Available() == nil || !strings.Contains(b.Available().Error(), "STEERABLE_BWRAP_PATH") {
		t.Errorf("bwrap in the workspace: %v", b.Available())
	}
}
