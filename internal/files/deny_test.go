package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDenyMatch(t *testing.T) {
	d := NewDeny([]DenyEntry{
		{Path: "/h/.ssh", Name: "~/.ssh"},
		{Path: "/h/.config/gh", Name: "~/.config/gh"},
		{Path: "/h/.netrc", Name: "~/.netrc"},
		{Path: "/etc/ssh/ssh_host_*_key", Name: "/etc/ssh/ssh_host_*_key"},
		{Path: "/root/.*_history", Name: "/root/.*_history"},
		{Path: "relative", Name: "ignored"},
	})
	tests := []struct {
		path, entry string // entry "" : not denied
	}{
		{"/h/.ssh", "~/.ssh"},
		{"/h/.ssh/id_ed25519", "~/.ssh"},
		{"/h/.ssh/sub/deep", "~/.ssh"},
		{"/h/.sshx", ""},
		{"/h/.ss", ""},
		{"/h", ""},
		{"/", ""},
		{"/h/.config", ""},
		{"/h/.config/gh/hosts.yml", "~/.config/gh"},
		{"/h/.config/ghx/hosts.yml", ""},
		{"/h/.netrc", "~/.netrc"},
		{"/h/.netrc.bak", ""},
		{"/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_*_key"},
		{"/etc/ssh/ssh_host_ed25519_key.pub", ""},
		{"/etc/ssh/sshd_config", ""},
		{"/root/.bash_history", "/root/.*_history"},
		{"/root/.bashrc", ""},
		{"/relative", ""},
	}
	for _, tt := range tests {
		e, ok := d.Match(tt.path)
		if ok != (tt.entry != "") || e.Name != tt.entry {
			t.Errorf("Match(%q) = %+v, %v; want %q", tt.path, e, ok, tt.entry)
		}
	}
	for dir, want := range map[string]bool{"/": true, "/h": true, "/h/.config": true, "/etc/ssh": true, "/h/.ssh": false, "/usr": false} {
		if got := d.Holds(dir); got != want {
			t.Errorf("Holds(%q) = %v, want %v", dir, got, want)
		}
	}
	var none *Deny
	if _, ok := none.Match("/h/.ssh"); ok || none.Holds("/") || !NewDeny(nil).Empty() {
		t.Error("an empty deny list denies something")
	}
}

// FuzzDenyMatch: Match is a lookup over the path's prefixes; it must agree
// with the plain definition (an entry is the path, a prefix of it at a
// separator, or a wildcard matching the component below its directory).
func FuzzDenyMatch(f *testing.F) {
	for _, s := range []string{"/h/.ssh/id", "/h/.sshx", "/etc/ssh/ssh_host_rsa_key", "/", "//", "/a/../h/.ssh", "/h/.ssh/", "/[/x"} {
		f.Add(s, "/h/.ssh", "/etc/ssh/ssh_host_*_key")
	}
	f.Fuzz(func(t *testing.T, path, plain, pattern string) {
		if !filepath.IsAbs(path) || filepath.Clean(path) != path {
			return
		}
		entries := []DenyEntry{{Path: plain, Name: "plain"}, {Path: pattern, Name: "pattern"}}
		_, got := NewDeny(entries).Match(path)
		want := false
		for _, e := range entries {
			p := filepath.Clean(e.Path)
			if !filepath.IsAbs(p) {
				continue
			}
			if !isPattern(p) {
				want = want || path == p || strings.HasPrefix(path, strings.TrimSuffix(p, "/")+"/")
				continue
			}
			dir := filepath.Dir(p)
			for q := path; q != filepath.Dir(q); q = filepath.Dir(q) {
				if filepath.Dir(q) == dir {
					ok, _ := filepath.Match(filepath.Base(p), filepath.Base(q))
					want = want || ok
				}
			}
		}
		if got != want {
			t.Fatalf("Match(%q) with %q = %v, want %v", path, entries, got, want)
		}
	})
}

// The attack: a path that resolves into a credential store — directly,
// through a symlink, with .., absolute, or missing yet (write_file of a new
// key) — is refused by Resolve with ErrDenied naming the entry and the
// variable that lifts it; paths beside the store are not.
func TestResolveRefusesCredentialStores(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(home+"/.ssh", 0o700)
	os.Mkdir(home+"/sub", 0o755)
	os.WriteFile(home+"/.ssh/id_ed25519", []byte("key"), 0o600)
	os.Symlink(".ssh", home+"/keys")
	os.Symlink(home+"/.ssh/id_ed25519", home+"/key-link")
	calls := 0
	w, err := Open(home, true, WithDeny(func() []DenyEntry {
		calls++
		return []DenyEntry{{Path: home + "/.ssh", Name: "~/.ssh"}, {Path: home + "/.aws", Name: "~/.aws"}}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, p := range []string{".ssh/id_ed25519", home + "/.ssh/id_ed25519", "keys/id_ed25519", "key-link", "sub/../.ssh/x", ".ssh", ".ssh/authorized_keys", ".aws/credentials"} {
		_, err := w.Resolve(p)
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "STEERABLE_SANDBOX_ALLOW_READ=~/") {
			t.Errorf("Resolve(%q) = %v, want a refusal naming the entry", p, err)
		}
	}
	for _, p := range []string{"notes.txt", ".sshx", ".config/x"} {
		if _, err := w.Resolve(p); err != nil {
			t.Errorf("Resolve(%q) = %v", p, err)
		}
	}
	if calls != 1 {
		t.Errorf("the deny list was built %d times, want once", calls)
	}
}

// BenchmarkResolveDeny: what the deny check adds to every file tool's
// path — Resolve of a file in a home workspace, with no deny list and with
// one of the defaults' size for two homes.
func BenchmarkResolveDeny(b *testing.B) {
	home, _ := filepath.EvalSymlinks(b.TempDir())
	os.MkdirAll(home+"/src/pkg", 0o755)
	os.WriteFile(home+"/src/pkg/read4k.txt", make([]byte, 4096), 0o644)
	var entries []DenyEntry
	for i := range 60 {
		for _, h := range []string{home, "/root"} {
			entries = append(entries, DenyEntry{Path: fmt.Sprintf("%s/.store%d", h, i), Name: fmt.Sprintf("~/.store%d", i)})
		}
	}
	entries = append(entries, DenyEntry{Path: "/etc/ssh/ssh_host_*_key", Name: "/etc/ssh/ssh_host_*_key"})
	b.Run("Match alone", func(b *testing.B) {
		d := NewDeny(entries)
		for b.Loop() {
			if _, denied := d.Match(home + "/src/pkg/read4k.txt"); denied {
				b.Fatal("denied")
			}
		}
	})
	for _, c := range []struct {
		name string
		opts []Option
	}{{"none", nil}, {"122 entries", []Option{WithDeny(func() []DenyEntry { return entries })}}} {
		b.Run(c.name, func(b *testing.B) {
			w, err := Open(home, true, c.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			for b.Loop() {
				if _, err := w.Resolve("src/pkg/read4k.txt"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
