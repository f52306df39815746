//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"steerable.dev/sidecar/internal/exectest"
)

// The attack: a root sidecar's command makes a root-owned program outside
// the writable roots set-user-ID (or set-group-ID), for anyone to run as
// root later, or chowns a file outside the roots (the helper's capability
// bounding set and bwrap's --cap-drop ALL leave it no CAP_CHOWN). Landlock does not govern metadata; the seccomp filter
// refuses the setid bits (bwrap: / is read-only too). In the workspace a
// plain chmod still works, and the setid bits stay refused there as well.
func TestSetidBitsAreRefused(t *testing.T) {
	outside, err := os.MkdirTemp("/var/tmp", "steerable-metadata-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			victim := filepath.Join(outside, name)
			if err := exectest.WriteFile(victim, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			owned := victim + ".user" // a user's file: giving it to root or to another user
			if err := os.WriteFile(owned, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(owned, 1000, 1000); err != nil {
				t.Fatal(err)
			}
			s := openSandbox(t, name, false)
			script := `v=` + victim + `; o=` + owned + `
				chown 0:0 "$o" 2>/dev/null && echo "chown $o"
				chown 65534 "$v" 2>/dev/null && echo "chown $v"
				chmod u+s "$v" 2>/dev/null && echo "setuid $v"
				chmod g+s "$v" 2>/dev/null && echo "setgid $v"
				python3 -c 'import os,sys; os.chmod(sys.argv[1], 0o4755)' "$v" 2>/dev/null && echo "python setuid $v"
				echo x > own; chmod 700 own && echo plain-ok
				chmod u+s own 2>/dev/null && echo "setuid own"
				echo done`
			res := run(t, s, script, RunOptions{})
			if res.Stdout != "plain-ok\ndone\n" {
				t.Errorf("got %q (stderr %q), want only plain-ok and done", res.Stdout, res.Stderr)
			}
			fi, err := os.Stat(victim)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 || strings.Contains(res.Stdout, "setuid") {
				t.Errorf("%s is now %v", victim, fi.Mode())
			}
			if st, err := os.Stat(owned); err != nil || st.Sys().(*syscall.Stat_t).Uid != 1000 {
				t.Errorf("%s changed owner (%v)", owned, err)
			}
		})
	}
}
