//go:build linux

package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// deadTag is the owner tag of a process that has exited: pid and start
// time taken while it ran.
func deadTag(t *testing.T) string {
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ns, _, _ := selfIdentity()
	start, _ := processStart(cmd.Process.Pid)
	tag := fmt.Sprintf("%d.%d.%d", ns, cmd.Process.Pid, start)
	cmd.Process.Kill()
	cmd.Wait()
	return tag
}

// Session temp dirs leaked by SIGKILLed sidecars are removed at
// the next start — only those whose owner is provably gone. A live
// sidecar's dir (many run at once), one of another PID namespace, another
// user's, and one without a tag (older versions) stay.
func TestRemoveStaleSessionDirs(t *testing.T) {
	parent := sandboxtest.RealTempDir(t)
	live := exec.Command("sleep", "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	ns, _, _ := selfIdentity()
	liveStart, _ := processStart(live.Process.Pid)
	dead := deadTag(t)
	_, deadPid, deadStart, _ := parseOwnerTag(dead)
	dirs := map[string]bool{ // name → want removed
		sessionDirPrefix + dead + "-a1": true,
		sessionDirPrefix + fmt.Sprintf("%d.%d.%d", ns, live.Process.Pid, liveStart) + "-b2":   false,
		sessionDirPrefix + fmt.Sprintf("%d.%d.%d", ns, live.Process.Pid, liveStart+1) + "-c3": true, // pid reused
		sessionDirPrefix + ownerTag() + "-d4":                                                 false,
		sessionDirPrefix + fmt.Sprintf("%d.%d.%d", ns+1, deadPid, deadStart) + "-e5":          false, // another namespace
		sessionDirPrefix + "123456789":                                                        false, // no tag
		sessionDirPrefix + "garbage.x.y-f6":                                                   false,
	}
	for name := range dirs {
		os.MkdirAll(filepath.Join(parent, name, "sub"), 0o700)
		os.WriteFile(filepath.Join(parent, name, "sub", "f"), []byte("x"), 0o400)
		os.Chmod(filepath.Join(parent, name, "sub"), 0o500) // left read-only by a command
	}
	if os.Geteuid() == 0 {
		other := sessionDirPrefix + dead + "-g7"
		os.Mkdir(filepath.Join(parent, other), 0o700)
		os.Chown(filepath.Join(parent, other), nobody, nobody)
		dirs[other] = false // another user's
	}
	n := RemoveStaleSessionDirs(parent)
	removed := 0
	for name, want := range dirs {
		_, err := os.Stat(filepath.Join(parent, name))
		if gone := err != nil; gone != want {
			t.Errorf("%s: removed=%v, want %v", name, gone, want)
		}
		if want {
			removed++
		}
	}
	if n != removed {
		t.Errorf("RemoveStaleSessionDirs = %d, want %d", n, removed)
	}
}

// A SIGKILLed sidecar's cgroups are emptied and removed by the next start.
func TestStaleCgroupsAreRemoved(t *testing.T) {
	cg, err := openCgroups(ownerTag())
	if err != nil {
		t.Skipf("no writable cgroup here: %v", err)
	}
	defer cg.close()
	// Every sidecar that starts sweeps the same parent, and other packages'
	// tests start sidecars meanwhile: one of them may remove the stale
	// session first (then this one counts none), even between the two
	// mkdirs. A sweep that removes nothing fails every round.
	for round := 1; ; round++ {
		stale := map[Controller]string{}
		for c, dir := range cg.dirs {
			d := filepath.Join(filepath.Dir(dir), "steerable-"+deadTag(t))
			if err := os.MkdirAll(filepath.Join(d, "call-1"), 0o755); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			stale[c] = d
		}
		again, err := openCgroups(ownerTag())
		if err != nil {
			t.Fatal(err)
		}
		again.close()
		for c, d := range stale {
			if _, err := os.Stat(d); err == nil {
				t.Fatalf("%s: stale %s still there", c, d)
			}
		}
		if again.stale > 0 {
			return
		}
		if round == 5 {
			t.Fatalf("no stale session counted in %d rounds", round)
		}
	}
}

// FuzzParseOwnerTag: tags come from directory names anyone can create;
// whatever they hold, parsing never panics and a tag that parses names a
// positive pid and round-trips.
func FuzzParseOwnerTag(f *testing.F) {
	for _, s := range []string{ownerTag(), "1.2.3", "a.b.c", "1.-2.3", "..", "4026531836.99999999999999999999.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		ns, pid, start, ok := parseOwnerTag(tag)
		if !ok {
			if ownerGone(tag) {
				t.Fatalf("an unparsable tag %q counts as gone", tag)
			}
			return
		}
		if pid <= 0 {
			t.Fatalf("%q parsed to pid %d", tag, pid)
		}
		again := fmt.Sprintf("%d.%d.%d", ns, pid, start)
		if ns2, pid2, start2, ok2 := parseOwnerTag(again); !ok2 || ns2 != ns || pid2 != pid || start2 != start {
			t.Fatalf("%q does not round-trip through %q", tag, again)
		}
	})
}
