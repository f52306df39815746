//go:build linux

package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// fakeCgroupfs writes a tree of cgroup control files below a temp dir
// (the mount point): each key a cgroup, each value its files.
func fakeCgroupfs(t *testing.T, tree map[string]map[string]string) string {
	t.Helper()
	mnt := sandboxtest.RealTempDir(t)
	for dir, files := range tree {
		os.MkdirAll(filepath.Join(mnt, dir), 0o755)
		for name, content := range files {
			os.WriteFile(filepath.Join(mnt, dir, name), []byte(content), 0o644)
		}
	}
	return mnt
}

// Where an unprivileged sidecar whose cgroup it shares with the host puts
// its session: the closest ancestor inside its own user manager's tree
// that hands memory and pids to its children, never above that tree and
// never in another user's.
func TestUserManagerParent(t *testing.T) {
	const um = "/user.slice/user-1000.slice/user@1000.service"
	files := func(subtree string) map[string]string {
		return map[string]string{"cgroup.subtree_control": subtree, "cgroup.procs": "", "cgroup.controllers": "cpu memory pids"}
	}
	tests := []struct {
		name string
		tree map[string]map[string]string
		base string
		uid  int
		want string
	}{
		{"app.slice", map[string]map[string]string{um: files("memory pids"), um + "/app.slice": files("memory pids"),
			um + "/app.slice/app-host.scope": files("")}, um + "/app.slice/app-host.scope", 1000, um + "/app.slice"},
		{"the user manager's own cgroup when the slice lacks pids", map[string]map[string]string{um: files("cpu memory pids"),
			um + "/app.slice": files("memory"), um + "/app.slice/app-host.scope": files("")}, um + "/app.slice/app-host.scope", 1000, um},
		{"nothing above the user manager", map[string]map[string]string{"/user.slice": files("memory pids"), um: files("memory"),
			um + "/app.slice": files(""), um + "/app.slice/x.scope": files("")}, um + "/app.slice/x.scope", 1000, ""},
		{"another user's manager", map[string]map[string]string{um: files("memory pids"), um + "/app.slice": files("memory pids"),
			um + "/app.slice/x.scope": files("")}, um + "/app.slice/x.scope", 1001, ""},
		{"outside a user manager", map[string]map[string]string{"/system.slice": files("memory pids"),
			"/system.slice/host.service": files("")}, "/system.slice/host.service", 1000, ""},
		{"a look-alike name", map[string]map[string]string{"/user@1000.services": files("memory pids"),
			"/user@1000.services/x.scope": files("")}, "/user@1000.services/x.scope", 1000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mnt := fakeCgroupfs(t, tt.tree)
			got := userManagerParent(mnt, mnt+tt.base, tt.uid)
			want := ""
			if tt.want != "" {
				want = mnt + tt.want
			}
			if got != want {
				t.Errorf("userManagerParent = %q, want %q", strings.TrimPrefix(got, mnt), tt.want)
			}
		})
	}
}

// A cgroup is the sidecar's own to split only when it has memory and pids
// among its controllers and holds no other process.
func TestDelegable(t *testing.T) {
	const pid = 4242
	tests := []struct {
		controllers, procs string
		want               string // "" = delegable
	}{
		{"cpu io memory pids", "4242\n", ""},
		{"memory pids", "", ""},
		{"cpu memory", "4242\n", "not given the memory and pids controllers"},
		{"memory pids", "4242\n77\n", "holds 1 other processes"},
	}
	for _, tt := range tests {
		mnt := fakeCgroupfs(t, map[string]map[string]string{"/svc": {"cgroup.controllers": tt.controllers, "cgroup.procs": tt.procs,
			"cgroup.subtree_control": ""}})
		err := delegable(mnt+"/svc", pid)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("controllers %q, procs %q: %v, want %q", tt.controllers, tt.procs, err, tt.want)
		}
	}
}
