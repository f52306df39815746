package files

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The attack: someone who can write the journal (or a mangled disk) plants
// a transaction whose manifest names paths a commit never would, hoping
// the next start — which recovers with the sidecar's rights, outside any
// sandbox — copies a secret into the workspace, removes a file beside the
// one it restores, or reaches outside the workspace. Every such manifest
// is refused whole and reported; nothing it names is followed.
func TestRecoverRefusesForgedManifests(t *testing.T) {
	const content = "the commit's content\n"
	after := digest(content)
	tmp := func(ws, name string) string { return filepath.Join(ws, "."+name+".abc123.tmp") }
	cases := []struct {
		name  string
		done  bool
		entry func(ws, secret string) entry
	}{
		{"orig climbs out of the transaction", false, func(ws, secret string) entry {
			return entry{Path: ws + "/f.txt", Op: opReplace, Tmp: tmp(ws, "f.txt"), Orig: "../../../../../../../.." + secret, Before: digest("x"), After: after}
		}},
		{"orig is absolute", false, func(ws, secret string) entry {
			return entry{Path: ws + "/f.txt", Op: opReplace, Tmp: tmp(ws, "f.txt"), Orig: secret, Before: digest("x"), After: after}
		}},
		{"orig is a subdirectory's file", false, func(ws, _ string) entry {
			return entry{Path: ws + "/f.txt", Op: opReplace, Tmp: tmp(ws, "f.txt"), Orig: "sub/0.orig", Before: digest("x"), After: after}
		}},
		{"tmp names a file beside the target", false, func(ws, _ string) entry {
			return entry{Path: ws + "/f.txt", Op: opReplace, Tmp: ws + "/keep.txt", Orig: "0.orig", Before: digest("x"), After: after}
		}},
		{"tmp climbs out of the directory", false, func(ws, _ string) entry {
			return entry{Path: ws + "/f.txt", Op: opCreate, Tmp: ws + "/sub/../keep.txt", After: digest("nothing")}
		}},
		{"path outside the workspace", false, func(ws, secret string) entry {
			return entry{Path: secret, Op: opCreate, Tmp: tmp(filepath.Dir(secret), filepath.Base(secret)), After: digest("secret\n")}
		}},
		{"path climbs out of the workspace", false, func(ws, _ string) entry {
			return entry{Path: ws + "/../outside.txt", Op: opCreate, Tmp: tmp(filepath.Dir(ws), "outside.txt"), After: digest("x")}
		}},
		{"path is relative", false, func(ws, _ string) entry {
			return entry{Path: "f.txt", Op: opCreate, Tmp: ".f.txt.abc.tmp", After: after}
		}},
		{"create removes the workspace's top directory", false, func(ws, _ string) entry {
			return entry{Path: ws + "/sub/new.txt", Op: opCreate, Tmp: ws + "/sub/.new.txt.abc.tmp", After: digest("x"), MadeDir: ws}
		}},
		{"a finished commit's backup names a kept file", true, func(ws, _ string) entry {
			return entry{Path: ws + "/gone.txt", Op: opDelete, Backup: ws + "/keep.txt"}
		}},
		{"an unknown op", false, func(ws, _ string) entry { return entry{Path: ws + "/f.txt", Op: "chmod"} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, journal, outside := tempDir(t), tempDir(t), tempDir(t)
			secret := filepath.Join(outside, "secret")
			os.WriteFile(secret, []byte("secret\n"), 0o600)
			os.WriteFile(filepath.Join(ws, "f.txt"), []byte(content), 0o644)
			os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("keep me\n"), 0o644)
			os.Mkdir(filepath.Join(ws, "sub"), 0o755)
			os.WriteFile(filepath.Join(ws, "sub", "keep.txt"), []byte("keep me too\n"), 0o644)
			w := openWorkspace(t, ws, true, WithJournal(journal))
			txn := filepath.Join(w.journal, "forged")
			if c.done {
				txn += doneSuffix
			}
			os.MkdirAll(filepath.Join(txn, "sub"), 0o700)
			os.WriteFile(filepath.Join(txn, "sub", "0.orig"), []byte("planted\n"), 0o600)
			b, _ := json.Marshal(manifest{Workspace: ws, Entries: []entry{c.entry(ws, secret)}})
			os.WriteFile(filepath.Join(txn, manifestName), b, 0o600)
			before, outsideBefore := snapshot(t, ws), snapshot(t, outside)
			recs, err := w.Recover()
			if err == nil || !strings.Contains(err.Error(), "is refused, nothing in it was followed") || len(recs) != 0 {
				t.Errorf("Recover = %v, %v", recs, err)
			}
			if diff := cmp.Diff(before, snapshot(t, ws)); diff != "" {
				t.Errorf("the workspace changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(outsideBefore, snapshot(t, outside)); diff != "" {
				t.Errorf("outside the workspace changed (-before +after):\n%s", diff)
			}
			if _, err := os.Stat(txn); err != nil {
				t.Errorf("the refused transaction was not left in place: %v", err)
			}
		})
	}
}

// FuzzParseManifest: a manifest of any bytes is decoded without a panic,
// and one that is accepted names only the workspace's own paths, staged
// names beside their files and plain names in the transaction directory.
func FuzzParseManifest(f *testing.F) {
	const ws = "/w"
	good, _ := json.Marshal(manifest{Workspace: ws, Entries: []entry{
		{Path: "/w/a.txt", Op: opReplace, Tmp: "/w/.a.txt.k3j2.tmp", Orig: "0.orig", Before: digest("a"), After: digest("b")},
		{Path: "/w/d/e/n.txt", Op: opCreate, Tmp: "/w/d/e/.n.txt.zz.tmp", After: digest("n"), MadeDir: "/w/d"},
		{Path: "/w/g.txt", Op: opDelete, Backup: "/w/.g.txt.q1.del"},
	}})
	f.Add(good)
	f.Add([]byte(`{"workspace":"/w","entries":[{"path":"/w/a","op":"replace","orig":"../../etc/passwd"}]}`))
	f.Add([]byte(`{"workspace":"/w","entries":[{"path":"/etc/passwd","op":"delete","backup":"/etc/.passwd.1.del"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifest(b, ws)
		if err != nil {
			return
		}
		txn := "/j/txn"
		for i, e := range m.Entries {
			for _, p := range []string{e.Path, e.Tmp, e.Backup, e.MadeDir} {
				if p != "" && (!Within(ws, p) || p == ws || filepath.Clean(p) != p) {
					t.Fatalf("entry %d: %q accepted outside the workspace", i, p)
				}
			}
			for _, p := range []string{e.Tmp, e.Backup} {
				if p != "" && filepath.Dir(p) != filepath.Dir(e.Path) {
					t.Fatalf("entry %d: staged %q not beside %q", i, p, e.Path)
				}
			}
			if e.Orig != "" && (filepath.Dir(filepath.Join(txn, e.Orig)) != txn || strings.ContainsAny(e.Orig, `/\`)) {
				t.Fatalf("entry %d: orig %q leaves the transaction directory", i, e.Orig)
			}
		}
	})
}
