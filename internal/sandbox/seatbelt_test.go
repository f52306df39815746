package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

func TestSeatbeltProfile(t *testing.T) {
	tests := []struct {
		policy Policy
		want   string
	}{
		{Policy{WritableRoots: []string{"/w"}}, `(version 1)
(allow default)
(deny file-write*)
(allow file-read* file-write*
    (subpath (param "WRITABLE_ROOT_0")))
(allow file-write*
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/full")
    (literal "/dev/tty"))
(deny signal)
(allow signal (target same-sandbox))
(deny network*)
`},
		{Policy{WritableRoots: []string{"/w", "/t"}, Network: true, DenyRead: []string{"/h/.ssh"}}, `(version 1)
(allow default)
(deny file-read*
    (subpath (param "DENY_READ_0")))
(deny file-write*)
(allow file-read* file-write*
    (subpath (param "WRITABLE_ROOT_0"))
    (subpath (param "WRITABLE_ROOT_1")))
(allow file-write*
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/full")
    (literal "/dev/tty"))
(deny signal)
(allow signal (target same-sandbox))
`},
		{Policy{UnixSockets: true}, `(version 1)
(allow default)
(deny file-write*)
(allow file-read* file-write*)
(allow file-write*
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/full")
    (literal "/dev/tty"))
(deny signal)
(allow signal (target same-sandbox))
(deny network*)
(allow network* (remote unix-socket))
`},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SeatbeltProfile(tt.policy)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.policy, diff)
		}
	}
}

// Paths reach the profile as parameters: a root or a deny path whose name
// is SBPL cannot change the profile.
func TestSeatbeltPreparePassesPathsAsParameters(t *testing.T) {
	evil := `/w") (allow network*) ("`
	p := Policy{WritableRoots: []string{"/tmp/s", evil}, DenyRead: []string{evil + "/.ssh"}}
	got, err := Seatbelt{Path: "/usr/bin/sandbox-exec"}.Prepare(launch.Exec{Path: "/bin/bash", Args: []string{"bash", "-c", "true"}, Dir: "/w"}, p)
	if err != nil {
		t.Fatal(err)
	}
	n := p.normalized()
	want := launch.Spec{Exec: launch.Exec{Path: "/usr/bin/sandbox-exec", Dir: "/w", Args: []string{"sandbox-exec", "-p", SeatbeltProfile(n),
		"-D", "WRITABLE_ROOT_0=/tmp/s", "-D", "WRITABLE_ROOT_1=" + evil, "-D", "DENY_READ_0=" + evil + "/.ssh",
		"--", "/bin/bash", "-c", "true"}}}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b func() error) bool { return a == nil && b == nil })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !strings.Contains(got.Args[2], "(deny file-read* file-write*\n    (subpath (param \"DENY_READ_0\")))") ||
		strings.Index(got.Args[2], "(deny file-read* file-write*") < strings.Index(got.Args[2], "(allow file-read* file-write*") {
		t.Errorf("a deny path inside a writable root is not denied after the root's allowance:\n%s", got.Args[2])
	}
	if err := (Seatbelt{}).Available(); err == nil {
		t.Error("seatbelt without sandbox-exec claims to be available")
	}
}

// The profile carries the sandbox's deny list as it is resolved for a
// macOS home: every default credential store (keychains, browser data,
// ~/.ssh, …) becomes a DENY_READ parameter of a file-read* denial, before
// the roots' allowance: a root inside a denied store stays reachable.
func TestSeatbeltDeniesTheDefaultCredentialStores(t *testing.T) {
	home := "/Users/me"
	ws := home + "/.config/gh/repo" // a workspace inside a denied store
	deny := resolveDenyList(DenyOptions{Home: home}, []string{ws, "/private/var/folders/x/T/s"})
	p := Policy{WritableRoots: []string{ws, "/private/var/folders/x/T/s"}, DenyRead: deny.paths}
	la, err := Seatbelt{Path: "/usr/bin/sandbox-exec"}.Prepare(launch.Exec{Path: "/bin/bash", Args: []string{"bash"}}, p)
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]string{}
	for i, a := range la.Args {
		if a == "-D" {
			k, v, _ := strings.Cut(la.Args[i+1], "=")
			params[v] = k
		}
	}
	for _, e := range DefaultDenyRead {
		path := home + strings.TrimPrefix(e, "~")
		if _, ok := params[path]; !ok {
			t.Errorf("%s is not denied", path)
		}
	}
	profile := la.Args[2]
	if n := strings.Count(profile, `(subpath (param "DENY_READ_`); n != len(DefaultDenyRead) {
		t.Errorf("profile denies %d paths, want %d:\n%s", n, len(DefaultDenyRead), profile)
	}
	if !strings.Contains(profile, "(deny file-read*\n") || strings.Index(profile, "(deny file-read*") > strings.Index(profile, "(allow file-read* file-write*") {
		t.Errorf("the roots are not allowed after the denials (SBPL: the last rule wins):\n%s", profile)
	}
	if params[ws] != "WRITABLE_ROOT_1" && params[ws] != "WRITABLE_ROOT_0" {
		t.Errorf("the workspace is not a writable root: %v", params)
	}
}

// A wildcard entry reaches the profile as the paths that match it, and a
// store inside the workspace is denied after the workspace's allowance
// (SBPL: the last matching rule wins).
func TestSeatbeltDeniesStoresInsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a_key"), []byte("k"), 0o600)
	p := Policy{WritableRoots: []string{ws}, DenyRead: []string{filepath.Join(ws, "*_key"), filepath.Join(ws, ".ssh")}}
	la, err := Seatbelt{Path: "/usr/bin/sandbox-exec"}.Prepare(launch.Exec{Path: "/bin/bash", Args: []string{"bash"}}, p)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(la.Args, "\n")
	for _, want := range []string{"DENY_READ_0=" + ws + "/.ssh", "DENY_READ_1=" + ws + "/a_key"} {
		if !strings.Contains(line, want) {
			t.Errorf("no parameter %s:\n%s", want, line)
		}
	}
	profile := la.Args[2]
	if !strings.Contains(profile, "(deny file-read* file-write*\n    (subpath (param \"DENY_READ_0\"))\n    (subpath (param \"DENY_READ_1\")))") ||
		strings.Index(profile, "(deny file-read* file-write*") < strings.Index(profile, "(allow file-read* file-write*") {
		t.Errorf("the stores in the workspace are not denied after its allowance:\n%s", profile)
	}
}
