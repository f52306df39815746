package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// settle dates every directory below root (and root) back, as if nothing
// had changed in them for a minute.
func settle(t *testing.T, root string) {
	t.Helper()
	past := time.Now().Add(-time.Minute)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chtimes(p, past, past)
		}
		return nil
	})
}

func maskTargets(masks []string) []string {
	var out []string
	for i, a := range masks {
		if a == "--tmpfs" || (a == "--ro-bind" && i+2 < len(masks)) {
			if a == "--tmpfs" {
				out = append(out, masks[i+1])
			} else {
				out = append(out, masks[i+2])
			}
		}
	}
	slices.Sort(out)
	return out
}

// The masks of a deny list are computed once and then reused while the
// directories that decide them stay unchanged; a denied path that appears
// later — in an existing directory, below a directory created later, or
// in a directory replaced by another — is masked from the next call on.
func TestMaskCacheFollowsTheDeniedPaths(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".netrc"), []byte("x"), 0o600)
	os.MkdirAll(filepath.Join(home, ".config", "editor"), 0o755)
	deny := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".netrc"), filepath.Join(home, ".aws"),
		filepath.Join(home, ".docker", "config.json"), filepath.Join(home, ".config", "gh")}
	settle(t, home)
	var c maskCache
	first := c.get(deny, nil).before
	if diff := cmp.Diff([]string{filepath.Join(home, ".netrc"), filepath.Join(home, ".ssh")}, maskTargets(first)); diff != "" {
		t.Fatalf("masks (-want +got):\n%s", diff)
	}
	if again := c.get(deny, nil).before; &again[0] != &first[0] {
		t.Error("an unchanged deny list was computed again")
	}

	steps := []struct {
		name   string
		change func()
		want   string
	}{
		{"a store created in an existing directory", func() {
			os.MkdirAll(filepath.Join(home, ".aws"), 0o700)
		}, ".aws"},
		{"a store below a directory created later", func() {
			os.Mkdir(filepath.Join(home, ".docker"), 0o700)
			settle(t, home) // the creation of .docker is settled; config.json is not yet there
			c.get(deny, nil)
			os.WriteFile(filepath.Join(home, ".docker", "config.json"), []byte("{}"), 0o600)
		}, ".docker/config.json"},
		{"a store in a directory replaced by another", func() {
			settle(t, home)
			c.get(deny, nil) // settled
			cfg := filepath.Join(home, ".config")
			oldHome, _ := os.Stat(home)
			oldCfg, _ := os.Stat(cfg)
			os.Rename(cfg, filepath.Join(home, ".config-old"))
			os.MkdirAll(filepath.Join(cfg, "gh"), 0o700)
			// Only the identity of .config tells them apart now.
			os.Chtimes(cfg, oldCfg.ModTime(), oldCfg.ModTime())
			os.Chtimes(home, oldHome.ModTime(), oldHome.ModTime())
		}, ".config/gh"},
	}
	for _, st := range steps {
		st.change()
		masks := c.get(deny, nil).before
		if !slices.Contains(maskTargets(masks), filepath.Join(home, st.want)) {
			t.Errorf("%s: %s is not masked: %q", st.name, st.want, masks)
		}
	}
}

// A directory modified within the last second may change again within
// the same tick of a coarse file-system clock, keeping its modification
// time: masks that depend on one are used once and computed again.
func TestMaskCacheDoesNotTrustARecentChange(t *testing.T) {
	home := t.TempDir() // modified just now
	deny := []string{filepath.Join(home, ".ssh")}
	fi, _ := os.Stat(home)
	var c maskCache
	if first := c.get(deny, nil).before; len(first) != 0 {
		t.Fatalf("masks of a missing path: %q", first)
	}
	os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
	os.Chtimes(home, fi.ModTime(), fi.ModTime()) // the same tick: the time did not move
	if masks := c.get(deny, nil).before; !strings.Contains(strings.Join(masks, " "), ".ssh") {
		t.Errorf("a store created in the tick of the last change is not masked: %q", masks)
	}
}

// Without a cache (a Bwrap not made by NewBwrap) the masks are computed
// for every child.
func TestNilMaskCacheComputesEachTime(t *testing.T) {
	home := t.TempDir()
	deny := []string{filepath.Join(home, ".ssh")}
	var c *maskCache
	if masks := c.get(deny, nil).before; len(masks) != 0 {
		t.Errorf("masks of a missing path: %q", masks)
	}
	os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
	if masks := c.get(deny, nil).before; len(masks) != 2 {
		t.Errorf("masks after it appeared: %q", masks)
	}
}

// A store inside a writable root is masked after the root's bind (a mask
// before it would be covered by the bind), with each directory between
// the root and it bound over itself first; a store outside every root is
// masked before the binds, so a root inside it is bound over the mask.
func TestMasksInsideARootComeAfterItsBind(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".ssh", ".config/gh", "outside/.aws"} {
		os.MkdirAll(filepath.Join(home, d), 0o700)
	}
	os.WriteFile(filepath.Join(home, ".netrc"), []byte("x"), 0o600)
	deny := []string{home + "/.ssh", home + "/.config/gh", home + "/.netrc", home + "/outside/.aws"}
	got := masksFor(deny, []string{home})
	want := maskArgs{
		after: []string{
			"--bind", home + "/.config", home + "/.config", "--tmpfs", home + "/.config/gh",
			"--ro-bind", "/dev/null", home + "/.netrc",
			"--tmpfs", home + "/.ssh",
			"--bind", home + "/outside", home + "/outside", "--tmpfs", home + "/outside/.aws",
		},
		remount: []string{"--remount-ro", home + "/.config/gh", "--remount-ro", home + "/.ssh", "--remount-ro", home + "/outside/.aws"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(maskArgs{})); diff != "" {
		t.Errorf("masks in the root (-want +got):\n%s", diff)
	}
	got = masksFor(deny, []string{home + "/outside/.aws/sub"}) // a root inside a store
	if !slices.Contains(got.before, home+"/outside/.aws") || slices.Contains(got.after, home+"/outside/.aws") {
		t.Errorf("a store holding a root is not masked before the binds: %+v", got)
	}
	args := Bwrap{Path: "/usr/bin/bwrap"}.args(launch.Exec{Path: "/bin/true", Args: []string{"true"}}, Policy{WritableRoots: []string{home}, DenyRead: deny}.normalized(), -1, false)
	line := strings.Join(args, " ")
	if strings.Index(line, "--bind "+home+" "+home) > strings.Index(line, "--tmpfs "+home+"/.ssh") {
		t.Errorf("the mask of .ssh comes before the workspace's bind: %s", line)
	}
}
