//go:build linux

package launch

import "testing"

// The sidecar finds its own cgroup and the hierarchies' mount points on a
// v1 hybrid host, a pure v2 host and in a container whose cgroup
// namespace shows a mount root other than /.
func TestCgroupPathsAndMounts(t *testing.T) {
	hybrid := "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/519f\n0::/\n"
	hybridMounts := `25 1 0:21 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755
30 25 0:26 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
31 25 0:27 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids
32 25 0:28 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw
`
	pure := "0::/user.slice/user-1000.slice/session-2.scope\n"
	pureMounts := "29 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
	nested := "40 30 0:26 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n"
	tests := []struct {
		self, mounts, fstype, ctl string
		path, mount               string
	}{
		{hybrid, hybridMounts, "cgroup", "memory", "/process_api/519f", "/sys/fs/cgroup/memory"},
		{hybrid, hybridMounts, "cgroup", "pids", "/", "/sys/fs/cgroup/pids"},
		{hybrid, hybridMounts, "cgroup2", "", "/", "/sys/fs/cgroup/unified"},
		{pure, pureMounts, "cgroup2", "", "/user.slice/user-1000.slice/session-2.scope", "/sys/fs/cgroup"},
		{pure, pureMounts, "cgroup", "memory", "", ""},
		{"0::/\n", nested, "cgroup2", "", "/", ""}, // a mount of a subtree is not the hierarchy's root
	}
	for _, tt := range tests {
		path, _ := CgroupPath(tt.self, tt.ctl)
		mount := MountPoint(tt.mounts, tt.fstype, tt.ctl)
		if path != tt.path || mount != tt.mount {
			t.Errorf("%s %q: path %q mount %q, want %q %q", tt.fstype, tt.ctl, path, mount, tt.path, tt.mount)
		}
	}
}
