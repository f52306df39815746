package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// plantHome makes a temporary HOME with credential stores in it, outside
// /tmp (which bwrap replaces with a private tmpfs).
func plantHome(t *testing.T) string {
	home := varTempDir(t)
	for path, body := range map[string]string{
		".ssh/id_test":         "ssh-secret",
		".aws/credentials":     "aws-secret",
		".netrc":               "netrc-secret",
		".config/gh/hosts.yml": "gh-secret",
		".config/editor/prefs": "not a secret",
		"notes.txt":            "not a secret",
		".npmrc":               "npm-secret",
	} {
		p := filepath.Join(home, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func TestResolveDenyList(t *testing.T) {
	home := plantHome(t)
	ws := filepath.Join(home, "ws")
	os.Mkdir(ws, 0o755)
	other := plantHome(t) // the passwd entry's home, when HOME is another
	all := func(h string) []string {
		return []string{h + "/.ssh", h + "/.aws", h + "/.netrc", h + "/.npmrc", h + "/.config/gh"}
	}
	tests := []struct {
		name    string
		opts    DenyOptions
		roots   []string
		present []string
		note    string
	}{
		{"defaults", DenyOptions{Home: home}, []string{ws}, all(home), ""},
		{"a default lifted", DenyOptions{Home: home, Allow: []string{"~/.npmrc"}}, []string{ws},
			[]string{home + "/.ssh", home + "/.aws", home + "/.netrc", home + "/.config/gh"}, ""},
		{"an extra that does not exist", DenyOptions{Home: home, Extra: []string{"/nonexistent/secret"}}, []string{ws},
			all(home), "/nonexistent/secret does not exist"},
		{"HOME is the workspace: denied all the same", DenyOptions{Home: home}, []string{home}, all(home),
			"denied inside a writable root (hidden from commands, refused by the file tools): " + home + "/.ssh"},
		{"a root inside ~/.ssh", DenyOptions{Home: home}, []string{home + "/.ssh/ws"}, all(home),
			"a writable root is inside denied " + home + "/.ssh"},
		{"$HOME and the passwd home both", DenyOptions{Home: home, UserHome: other}, []string{ws}, append(all(home), all(other)...), ""},
		{"the same home twice", DenyOptions{Home: home, UserHome: home + "/"}, []string{ws}, all(home), ""},
		{"a directory lifted: every store inside it", DenyOptions{Home: home, Allow: []string{"~/.config"}}, []string{ws},
			[]string{home + "/.ssh", home + "/.aws", home + "/.netrc", home + "/.npmrc"}, ""},
		{"a wildcard", DenyOptions{Home: home, Extra: []string{"~/.n*rc"}}, []string{ws}, all(home), ""},
		{"no HOME", DenyOptions{}, []string{ws}, nil, "HOME is unset"},
		{"no HOME, a passwd home", DenyOptions{UserHome: other}, []string{ws}, all(other), ""},
	}
	for _, tt := range tests {
		d := resolveDenyList(tt.opts, tt.roots)
		less := func(a, b string) bool { return a < b }
		if diff := cmp.Diff(tt.present, d.present, cmpopts.SortSlices(less), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: present (-want +got):\n%s", tt.name, diff)
		}
		if tt.note != "" && !strings.Contains(strings.Join(d.notes, "\n"), tt.note) {
			t.Errorf("%s: notes %q lack %q", tt.name, d.notes, tt.note)
		}
	}
}

// A root sidecar denies the system's secrets too, wildcards included:
// every SSH host key, root's shell histories.
func TestRootDenyList(t *testing.T) {
	d := resolveDenyList(DenyOptions{Root: true}, nil)
	for _, want := range []string{"/etc/shadow", "/etc/ssl/private", "/etc/ssh/ssh_host_*_key", "/root/.*_history"} {
		if !contains(d.paths, want) {
			t.Errorf("a root sidecar does not deny %s: %q", want, d.paths)
		}
	}
	if d := resolveDenyList(DenyOptions{}, nil); contains(d.paths, "/etc/shadow") {
		t.Errorf("a non-root sidecar lists /etc/shadow: %q", d.paths)
	}
	for _, p := range []string{"/etc/ssh/ssh_host_ed25519_key", "/root/.bash_history", "/root/.python_history"} {
		if !slices.ContainsFunc(d.paths, func(e string) bool { return deniedBy(e, p) }) {
			t.Errorf("%s is not denied", p)
		}
	}
	for _, p := range []string{"/etc/ssh/ssh_host_ed25519_key.pub", "/etc/ssh/sshd_config", "/root/.bashrc"} {
		if slices.ContainsFunc(d.paths, func(e string) bool { return deniedBy(e, p) }) {
			t.Errorf("%s is denied", p)
		}
	}
}

func TestDeniedBy(t *testing.T) {
	tests := []struct {
		entry, path string
		want        bool
	}{
		{"/h/.ssh", "/h/.ssh", true},
		{"/h/.ssh", "/h/.ssh/id", true},
		{"/h/.ssh", "/h/.sshx", false},
		{"/h/.ssh", "/h", false},
		{"/etc/ssh/ssh_host_*_key", "/etc/ssh/ssh_host_rsa_key", true},
		{"/etc/ssh/ssh_host_*_key", "/etc/ssh/ssh_host_rsa_key.pub", false},
		{"/etc/ssh/ssh_host_*_key", "/etc/ssh/sub/ssh_host_rsa_key", false},
		{"/d/*", "/d/x/y", true},
		{"/d/*", "/d", false},
		{"/*", "/etc", true},
		{"/[", "/[", false}, // malformed: matches nothing
	}
	for _, tt := range tests {
		if got := deniedBy(tt.entry, tt.path); got != tt.want {
			t.Errorf("deniedBy(%q, %q) = %v, want %v", tt.entry, tt.path, got, tt.want)
		}
	}
}

// The attack: a command prints the user's keys into the model's context.
// Under every confining backend the planted credential stores are
// unreadable, while the workspace, the rest of HOME and /usr stay readable
// — also when the workspace sits inside a denied directory.
func TestCredentialStoresAreUnreadable(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			home := plantHome(t)
			s := openWith(t, name, Options{Deny: DenyOptions{Home: home}})
			for _, secret := range []string{".ssh/id_test", ".aws/credentials", ".netrc", ".config/gh/hosts.yml", ".npmrc"} {
				res := run(t, s, `cat "`+filepath.Join(home, secret)+`"`, RunOptions{})
				if res.ExitCode == 0 || strings.Contains(res.Stdout, "secret") {
					t.Errorf("%s readable: %+v", secret, res)
				}
			}
			res := run(t, s, `cat "`+home+`/notes.txt" "`+home+`/.config/editor/prefs" && head -c 4 /usr/bin/env >/dev/null && echo ws > w && cat w && ls "`+home+`" >/dev/null`, RunOptions{})
			if res.ExitCode != 0 || !strings.HasSuffix(res.Stdout, "ws\n") {
				t.Errorf("what is not denied became unreadable: %+v", res)
			}
			if got := s.Info().DenyRead; len(got) != 5 {
				t.Errorf("Info().DenyRead = %q, want the 5 planted stores", got)
			}
		})
	}
}

// A workspace inside a credential store is one: every command is
// refused, naming the entry and how to lift it (cmd refuses such a
// workspace at boot; this holds where a symlink hid it there).
func TestWorkspaceInsideADeniedDirectoryIsRefused(t *testing.T) {
	home := plantHome(t)
	ws := filepath.Join(home, ".ssh", "project")
	os.Mkdir(ws, 0o755)
	s, err := Open(context.Background(), Options{Choice: "auto", Workspace: ws, TempParent: sandboxtest.RealTempDir(t), Deny: DenyOptions{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Run(context.Background(), Command{Argv: []string{"cat", filepath.Join(home, ".ssh", "id_test")}, Dir: ws}, RunOptions{Timeout: 10 * time.Second}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a command ran in a workspace inside ~/.ssh: %v", err)
	}
	if sum := s.Summary(); !strings.Contains(sum, "lies inside the credential store "+home+"/.ssh (~/.ssh)") || !strings.Contains(sum, "STEERABLE_SANDBOX_ALLOW_READ=~/.ssh") {
		t.Errorf("the summary does not say why: %s", sum)
	}
}

// A writable root other than the workspace (a plugin's data directory)
// inside a denied directory stays reachable; the rest of it does not.
func TestRootInsideADeniedDirectoryStaysReachable(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			home := plantHome(t)
			data := filepath.Join(home, ".ssh", "plugin-data")
			os.Mkdir(data, 0o755)
			os.WriteFile(filepath.Join(data, "main.go"), []byte("package main"), 0o644)
			s := openWith(t, name, Options{Deny: DenyOptions{Home: home}})
			p := s.Policy().WithWritable(data)
			script := `cat main.go && echo new > new.txt && cat new.txt; cat "` + home + `/.ssh/id_test"`
			res, err := s.Run(context.Background(), Command{Argv: []string{"bash", "-c", script}, Dir: data, Policy: &p}, RunOptions{Timeout: 20 * time.Second, MaxOutput: 1 << 20})
			if err != nil || !strings.HasPrefix(res.Stdout, "package mainnew\n") {
				t.Errorf("the root inside ~/.ssh is not reachable: %v %+v", err, res)
			}
			if strings.Contains(res.Stdout, "ssh-secret") {
				t.Errorf("the rest of ~/.ssh is readable: %+v", res)
			}
		})
	}
}

// The attack of the commonest desktop set-up: the user opens their home
// as the workspace, and a command prints the keys in it. Under every
// backend the stores inside the workspace are unreadable and unwritable,
// cannot be moved out from under the deny list (mv of the directory
// above, then a read under the new name), while the rest of the workspace
// stays readable and writable.
func TestCredentialStoresInsideTheWorkspaceAreUnreadable(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			home := plantHome(t)
			os.WriteFile(filepath.Join(home, "top.txt"), []byte("top"), 0o644)
			os.Mkdir(filepath.Join(home, "proj"), 0o755)
			s := openWith(t, name, Options{Workspace: home, Deny: DenyOptions{Home: home}})
			for _, secret := range []string{".ssh/id_test", ".aws/credentials", ".netrc", ".config/gh/hosts.yml", ".npmrc"} {
				res := run(t, s, `cat `+secret, RunOptions{})
				if res.ExitCode == 0 || strings.Contains(res.Stdout, "secret") {
					t.Errorf("%s readable: %+v", secret, res)
				}
			}
			for _, attack := range []string{
				`echo planted > .ssh/authorized_keys`,
				`echo x > .netrc`,
				`mv .config .c2 && cat .c2/gh/hosts.yml`,
				`mv .config/gh ghx && cat ghx/hosts.yml`,
				`mv .aws awsx && cat awsx/credentials`,
				`rm -rf .ssh && ls -a .ssh`,
			} {
				if res := run(t, s, attack, RunOptions{}); res.ExitCode == 0 || strings.Contains(res.Stdout, "secret") {
					t.Errorf("%q succeeded: %+v", attack, res)
				}
			}
			run(t, s, `true`, RunOptions{}) // a fresh call sees what the attacks left
			if res := run(t, s, `cat .c2/gh/hosts.yml ghx/hosts.yml awsx/credentials .ssh/authorized_keys`, RunOptions{}); strings.Contains(res.Stdout, "secret") || strings.Contains(res.Stdout, "planted") {
				t.Errorf("a store was moved out or written: %+v", res)
			}
			res := run(t, s, `cat notes.txt .config/editor/prefs top.txt && echo more >> top.txt && echo e > .config/editor/new && mkdir -p proj/sub/dir && echo s > proj/sub/dir/f && mv proj/sub proj/sub2 && cat proj/sub2/dir/f`, RunOptions{})
			if res.ExitCode != 0 || !strings.HasSuffix(res.Stdout, "s\n") {
				t.Errorf("what is not denied became unreadable or unwritable: %+v", res)
			}
		})
	}
}

// Landlock grants a workspace that holds a credential store entry by
// entry: a command cannot create, rename or remove an entry directly in
// the directories that lead to a store (the summary says so), and the
// ruleset follows what the file tools create there.
func TestLandlockGrantsAWorkspaceHoldingAStoreEntryByEntry(t *testing.T) {
	home := plantHome(t)
	s := openWith(t, "landlock", Options{Workspace: home, Deny: DenyOptions{Home: home}})
	if res := run(t, s, `touch new-top`, RunOptions{}); res.ExitCode == 0 {
		t.Errorf("landlock let a command create an entry in the workspace's top level: %+v", res)
	}
	if sum := s.Summary(); !strings.Contains(sum, "commands cannot create, rename or remove entries directly in "+home+", ") {
		t.Errorf("the summary does not say what landlock costs here: %s", sum)
	}
	os.WriteFile(filepath.Join(home, "made-by-write_file.txt"), []byte("x"), 0o644) // what write_file does
	if res := run(t, s, `mkdir sub`, RunOptions{}); res.ExitCode == 0 {
		t.Errorf("mkdir at the top level succeeded: %+v", res)
	}
	if res := run(t, s, `echo y >> made-by-write_file.txt && cat made-by-write_file.txt`, RunOptions{}); res.Stdout != "xy\n" {
		t.Errorf("a file created at the top level by the tools is not writable by the next command: %+v", res)
	}
}

// bwrap has no such limit: the top level of a workspace holding a store
// stays as writable as the rest.
func TestBwrapWorkspaceHoldingAStoreKeepsItsTopLevel(t *testing.T) {
	home := plantHome(t)
	s := openWith(t, "bwrap", Options{Workspace: home, Deny: DenyOptions{Home: home}})
	if res := run(t, s, `touch new-top && mkdir d && mv new-top d/ && rm -r d`, RunOptions{}); res.ExitCode != 0 {
		t.Errorf("bwrap refused a top-level entry: %+v", res)
	}
}

// A wildcard entry denies what matches it now and what appears later.
func TestDenyWildcards(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			home := plantHome(t)
			keys := filepath.Join(home, "keys")
			os.Mkdir(keys, 0o755)
			os.WriteFile(filepath.Join(keys, "a_key"), []byte("a-secret"), 0o600)
			os.WriteFile(filepath.Join(keys, "a_key.pub"), []byte("public"), 0o644)
			s := openWith(t, name, Options{Deny: DenyOptions{Home: home, Extra: []string{keys + "/*_key"}}})
			if res := run(t, s, `cat "`+keys+`/a_key"`, RunOptions{}); strings.Contains(res.Stdout, "secret") {
				t.Errorf("a match is readable: %+v", res)
			}
			if res := run(t, s, `cat "`+keys+`/a_key.pub"`, RunOptions{}); res.Stdout != "public" {
				t.Errorf("a non-match is unreadable: %+v", res)
			}
			os.WriteFile(filepath.Join(keys, "b_key"), []byte("b-secret"), 0o600)
			if res := run(t, s, `cat "`+keys+`/b_key"`, RunOptions{}); strings.Contains(res.Stdout, "secret") {
				t.Errorf("a match created later is readable: %+v", res)
			}
		})
	}
}

// What a backend derives from the deny list is computed once — Landlock's
// allowlist, bwrap's masks of the paths that exist — and reused while the
// directories it depends on stay unchanged (here: unchanged for a minute,
// so nothing is recomputed for being recent). A file created later in an
// enumerated directory becomes readable, and a credential store created
// later is denied, from the next call on.
func TestDenyListFollowsNewEntries(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			home := plantHome(t)
			settle(t, home)
			s := openWith(t, name, Options{Deny: DenyOptions{Home: home}})
			run(t, s, `true`, RunOptions{})
			os.WriteFile(filepath.Join(home, "later.txt"), []byte("later"), 0o644)
			os.MkdirAll(filepath.Join(home, ".kube"), 0o755)
			os.WriteFile(filepath.Join(home, ".kube", "config"), []byte("kube-secret"), 0o600)
			if res := run(t, s, `cat "`+home+`/later.txt"`, RunOptions{}); res.Stdout != "later" {
				t.Errorf("a file created after boot is unreadable: %+v", res)
			}
			if res := run(t, s, `cat "`+home+`/.kube/config"`, RunOptions{}); res.ExitCode == 0 {
				t.Errorf("a credential store created after boot is readable: %+v", res)
			}
			settle(t, home)
			run(t, s, `true`, RunOptions{})
			os.WriteFile(filepath.Join(home, ".config", "gh", "new-token"), []byte("gh-secret"), 0o600)
			os.WriteFile(filepath.Join(home, ".pgpass"), []byte("pg-secret"), 0o600)
			if res := run(t, s, `cat "`+home+`/.pgpass" "`+home+`/.config/gh/new-token"`, RunOptions{}); strings.Contains(res.Stdout, "secret") {
				t.Errorf("a credential file created after boot is readable: %+v", res)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// varTempDir is a temp dir under /var/tmp: visible inside bwrap.
func varTempDir(t *testing.T) string {
	d, err := os.MkdirTemp("/var/tmp", "steerable-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	real, _ := filepath.EvalSymlinks(d)
	return real
}

// A root sidecar's commands read none of the system's secrets: password
// hashes, TLS private keys, root's shell histories — one created during
// the session included (a wildcard entry).
func TestRootSidecarSecretsAreUnreadable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the system's secrets are denied to a root sidecar only (anyone else cannot read them anyway); CI runs as root")
	}
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openWith(t, name, Options{Deny: DenyOptions{Root: true}})
			run(t, s, `true`, RunOptions{})
			f, err := os.CreateTemp("/root", ".steerable-test-*_history")
			if err != nil {
				t.Skip("cannot create a history file in /root:", err)
			}
			f.WriteString("history-secret")
			f.Close()
			defer os.Remove(f.Name())
			res := run(t, s, `cat /etc/shadow; cat /etc/ssl/private/* /etc/ssh/ssh_host_*_key 2>/dev/null; cat `+f.Name()+`; echo end`, RunOptions{})
			if res.Stdout != "end\n" {
				t.Errorf("a system secret is readable: %+v", res)
			}
		})
	}
}

// TestExpandHomes: a user's ~/x reaches the sandbox already expanded to
// $HOME/x by config; it is denied under the passwd entry's home too.
func TestExpandHomes(t *testing.T) {
	homes := []string{"/home/env", "/home/pw"}
	tests := []struct {
		in   string
		want []string
	}{
		{"~/.ssh", []string{"/home/env/.ssh", "/home/pw/.ssh"}},
		{"/home/env/.secret", []string{"/home/env/.secret", "/home/pw/.secret"}},
		{"/home/pw/.secret", []string{"/home/env/.secret", "/home/pw/.secret"}},
		{"/home/environment/x", []string{"/home/environment/x"}},
		{"/etc/shadow", []string{"/etc/shadow"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, expandHomes(tt.in, homes)); diff != "" {
			t.Errorf("expandHomes(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
