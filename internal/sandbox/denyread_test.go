package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
	tests := []struct {
		name    string
		opts    DenyOptions
		roots   []string
		present []string
		note    string
	}{
		{"defaults", DenyOptions{Home: home}, []string{ws},
			[]string{home + "/.ssh", home + "/.aws", home + "/.netrc", home + "/.npmrc", home + "/.config/gh"}, ""},
		{"a default lifted", DenyOptions{Home: home, Allow: []string{"~/.npmrc"}}, []string{ws},
			[]string{home + "/.ssh", home + "/.aws", home + "/.netrc", home + "/.config/gh"}, ""},
		{"an extra that does not exist", DenyOptions{Home: home, Extra: []string{"/nonexistent/secret"}}, []string{ws},
			[]string{home + "/.ssh", home + "/.aws", home + "/.netrc", home + "/.npmrc", home + "/.config/gh"}, "/nonexistent/secret does not exist"},
		{"HOME is the workspace", DenyOptions{Home: home}, []string{home}, nil, "is inside a writable root (the workspace is never masked)"},
		{"the workspace inside ~/.ssh", DenyOptions{Home: home}, []string{home + "/.ssh/ws"},
			[]string{home + "/.ssh", home + "/.aws", home + "/.netrc", home + "/.npmrc", home + "/.config/gh"}, "the workspace is inside denied " + home + "/.ssh"},
		{"no HOME", DenyOptions{}, []string{ws}, nil, "HOME is unset"},
	}
	for _, tt := range tests {
		d := resolveDenyList(tt.opts, tt.roots)
		less := func(a, b string) bool { return a < b }
		if diff := cmp.Diff(tt.present, d.present, cmpopts.SortSlices(less)); diff != "" {
			t.Errorf("%s: present (-want +got):\n%s", tt.name, diff)
		}
		if tt.note != "" && !strings.Contains(strings.Join(d.notes, "\n"), tt.note) {
			t.Errorf("%s: notes %q lack %q", tt.name, d.notes, tt.note)
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

func TestWorkspaceInsideADeniedDirectoryStaysReachable(t *testing.T) {
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			home := plantHome(t)
			ws := filepath.Join(home, ".ssh", "project")
			os.Mkdir(ws, 0o755)
			os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main"), 0o644)
			s := openWith(t, name, Options{Workspace: ws, Deny: DenyOptions{Home: home}})
			if res := run(t, s, `cat main.go && echo new > new.txt && cat new.txt`, RunOptions{}); res.ExitCode != 0 || res.Stdout != "package mainnew\n" {
				t.Errorf("the workspace inside ~/.ssh is not reachable: %+v", res)
			}
			if res := run(t, s, `cat "`+home+`/.ssh/id_test"`, RunOptions{}); res.ExitCode == 0 {
				t.Errorf("the rest of ~/.ssh is readable: %+v", res)
			}
			if !strings.Contains(s.Summary(), "the workspace is inside denied") {
				t.Errorf("the summary does not say so: %s", s.Summary())
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
