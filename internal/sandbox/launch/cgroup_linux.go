package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Per-call cgroups (SPEC §4.2 "per-call limits"). Each child gets a cgroup
// of its own below a session directory, steerable-<owner tag>, created
// below the sidecar's own cgroup in each hierarchy it can write:
//
//   - cgroup v2 where the sidecar's cgroup delegates the memory and pids
//     controllers (or lets the sidecar enable them): memory.max, pids.max,
//     cgroup.kill;
//   - cgroup v1 (as root, or delegated): the memory and pids hierarchies,
//     memory.limit_in_bytes and pids.max.
//
// A controller that no writable hierarchy offers is replaced by an rlimit
// (see setRlimits). The child joins its cgroups while stopped at execve,
// so nothing it runs escapes the limits. When it ends, the cgroup's
// processes are killed and the cgroup removed; at boot, the session
// directories of dead sidecars are emptied the same way.

type Controller string

const (
	CtlMemory Controller = "memory"
	CtlPids   Controller = "pids"
)

// cgroups is the session's view of the hierarchies it can use.
type cgroups struct {
	version int                   // 2, or 1
	dirs    map[Controller]string // the session directory per controller (v2: the same one)
	stale   int                   // session directories of dead sidecars removed at boot
	where   string                // where the session lives when not below the sidecar's cgroup as found (the summary)
	why     string                // why no delegated place was usable (the summary, when limits are missing)
	self    string                // the leaf the sidecar moved itself into (delegatedV2); "" if none

	mu   sync.Mutex
	idle []*callCgroup // emptied cgroups kept for the next calls
}

// openCgroups finds a writable hierarchy with the memory and pids
// controllers (v2 first, then v1), creates the session directory and
// removes those of dead sidecars. nil when none is writable.
func openCgroups(owner string) (*cgroups, error) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	v2, v2err := openV2(string(self), string(mounts), owner)
	if v2err == nil && v2.limits() == 2 {
		return v2, nil
	}
	v1, v1err := openV1(string(self), string(mounts), owner)
	switch {
	case v1err == nil && (v2err != nil || v1.limits() > v2.limits()):
		if v2err == nil {
			v2.removeSession()
		}
		return v1, nil
	case v2err == nil:
		if v1err == nil {
			v1.removeSession()
		}
		return v2, nil
	}
	return nil, fmt.Errorf("cgroup v2: %v; cgroup v1: %v", v2err, v1err)
}

// limits counts the controllers whose limits the session enforces.
func (cg *cgroups) limits() int {
	n := 0
	for c := range cg.dirs {
		if c != "" {
			n++
		}
	}
	return n
}

// openV2 uses the unified hierarchy. The session directory goes where the
// memory and pids controllers can be had (cgroup_delegate_linux.go): below
// the sidecar's own cgroup when it delegates them (the root, or an empty
// cgroup); below it too, once the sidecar has moved into a leaf of its
// own, when that cgroup is delegated to the sidecar and holds no other
// process; else beside it in the user manager's tree (user@UID.service),
// which systemd delegates to the user; else below its own cgroup with
// whatever that offers (cgroup.kill at least).
func openV2(self, mounts, owner string) (*cgroups, error) {
	rel, ok := CgroupPath(self, "")
	mnt := MountPoint(mounts, "cgroup2", "")
	if !ok || mnt == "" {
		return nil, errors.New("no unified hierarchy")
	}
	base := filepath.Join(mnt, rel)
	enableV2(base)
	if ListsMemoryAndPids(base, "cgroup.subtree_control") {
		return sessionV2(base, owner)
	}
	var why []string
	cg, err := delegatedV2(base, owner)
	if err == nil {
		return cg, nil
	}
	why = append(why, err.Error())
	if parent := userManagerParent(mnt, base, os.Getuid()); parent != "" {
		cg, err := sessionV2(parent, owner)
		if err == nil && cg.limits() == 2 {
			cg.where = "beside the sidecar's cgroup, in the user manager's " + strings.TrimPrefix(parent, mnt)
			removeStaleSessions(base, 2)
			return cg, nil
		}
		if err == nil {
			cg.removeSession()
		}
	}
	cg, err = sessionV2(base, owner)
	if err != nil {
		return nil, fmt.Errorf("%v (%s)", err, strings.Join(why, "; "))
	}
	cg.why = strings.Join(why, "; ")
	return cg, nil
}

// sessionV2 creates the session directory below parent, removes those of
// dead sidecars there, and enables in it the controllers parent offers.
func sessionV2(parent, owner string) (*cgroups, error) {
	session := filepath.Join(parent, "steerable-"+owner)
	if err := os.Mkdir(session, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	cg := &cgroups{version: 2, dirs: map[Controller]string{}}
	cg.stale = removeStaleSessions(parent, 2)
	avail, _ := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	for _, c := range []Controller{CtlMemory, CtlPids} {
		if slices.Contains(strings.Fields(string(avail)), string(c)) &&
			os.WriteFile(filepath.Join(session, "cgroup.subtree_control"), []byte("+"+string(c)), 0) == nil {
			cg.dirs[c] = session
		}
	}
	if len(cg.dirs) == 0 {
		cg.dirs[""] = session // cgroup.kill still ends the tree
	}
	return cg, nil
}

// ListsMemoryAndPids reports whether the flat list in dir/file names memory and pids.
func ListsMemoryAndPids(dir, file string) bool {
	b, _ := os.ReadFile(filepath.Join(dir, file))
	f := strings.Fields(string(b))
	return slices.Contains(f, string(CtlMemory)) && slices.Contains(f, string(CtlPids))
}

// enableV2 asks for memory and pids in base's children; it fails (EBUSY)
// when base holds processes and is not the root, which is fine: then only
// what base already delegates is used.
func enableV2(base string) {
	for _, c := range []Controller{CtlMemory, CtlPids} {
		os.WriteFile(filepath.Join(base, "cgroup.subtree_control"), []byte("+"+string(c)), 0)
	}
}

// openV1 uses the memory and pids hierarchies of cgroup v1.
func openV1(self, mounts, owner string) (*cgroups, error) {
	cg := &cgroups{version: 1, dirs: map[Controller]string{}}
	var errs []string
	for _, c := range []Controller{CtlMemory, CtlPids} {
		rel, ok := CgroupPath(self, string(c))
		mnt := MountPoint(mounts, "cgroup", string(c))
		if !ok || mnt == "" {
			errs = append(errs, string(c)+": not mounted")
			continue
		}
		base := filepath.Join(mnt, rel)
		session := filepath.Join(base, "steerable-"+owner)
		if err := os.Mkdir(session, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			errs = append(errs, fmt.Sprintf("%s: %v", c, err))
			continue
		}
		cg.stale += removeStaleSessions(base, 1)
		cg.dirs[c] = session
	}
	if len(cg.dirs) == 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return cg, nil
}

// CgroupPath is the sidecar's cgroup in the hierarchy of ctl ("" = v2)
// from /proc/self/cgroup.
func CgroupPath(self, ctl string) (string, bool) {
	for _, line := range strings.Split(self, "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if ctl == "" && f[0] == "0" && f[1] == "" {
			return f[2], true
		}
		if ctl != "" && slices.Contains(strings.Split(f[1], ","), ctl) {
			return f[2], true
		}
	}
	return "", false
}

// MountPoint finds the mount of fstype (with ctl among its super options
// for v1) whose root is the hierarchy's root, in /proc/self/mountinfo.
func MountPoint(mounts, fstype, ctl string) string {
	for _, line := range strings.Split(mounts, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || g[0] != fstype || f[3] != "/" {
			continue
		}
		if ctl == "" || slices.Contains(strings.Split(g[2], ","), ctl) {
			return f[4]
		}
	}
	return ""
}

// has reports whether the session enforces limits of controller c.
func (cg *cgroups) has(c Controller) bool {
	if cg == nil {
		return false
	}
	_, ok := cg.dirs[c]
	return ok
}

// close removes the session directories.
func (cg *cgroups) close() {
	if cg != nil {
		cg.removeSession()
	}
}

func (cg *cgroups) removeSession() {
	cg.mu.Lock()
	idle := cg.idle
	cg.idle = nil
	cg.mu.Unlock()
	for _, c := range idle {
		c.destroy()
	}
	for _, dir := range cg.dirs {
		if cg.self != "" {
			emptyCalls(dir, cg.version) // the sidecar itself is in the session's leaf: the next start removes both
			continue
		}
		emptySession(dir, cg.version)
	}
}

// emptySession kills and removes every call cgroup below a session
// directory, the leaf its sidecar ran in, if any, then the directory.
func emptySession(session string, version int) {
	emptyCalls(session, version)
	if leaf := filepath.Join(session, selfLeaf); dirExists(leaf) {
		killCgroup(leaf, version)
		rmdirRetry(leaf)
	}
	killCgroup(session, version)
	rmdirRetry(session)
}

// emptyCalls kills and removes every call cgroup below a session
// directory.
func emptyCalls(session string, version int) {
	entries, _ := os.ReadDir(session)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "call-") {
			dir := filepath.Join(session, e.Name())
			killCgroup(dir, version)
			rmdirRetry(dir)
		}
	}
}

func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// removeStaleSessions empties the session directories below base whose
// owner is provably gone, and returns how many.
func removeStaleSessions(base string, version int) int {
	entries, _ := os.ReadDir(base)
	n := 0
	for _, e := range entries {
		tag, ok := strings.CutPrefix(e.Name(), "steerable-")
		if !ok || !e.IsDir() || !ownerGone(tag) {
			continue
		}
		emptySession(filepath.Join(base, e.Name()), version)
		n++
	}
	return n
}

// summary describes what the session enforces with cgroups.
func (cg *cgroups) name() string {
	if cg == nil {
		return ""
	}
	return fmt.Sprintf("cgroup v%d", cg.version)
}

// note says where the session's cgroups are when that is not simply below
// the sidecar's own, or why a controller is missing.
func (cg *cgroups) note() string {
	switch {
	case cg == nil:
		return ""
	case cg.where != "":
		return "cgroups " + cg.where
	case cg.limits() < 2 && cg.why != "":
		return "cgroup v2 has no delegated memory and pids here: " + cg.why
	}
	return ""
}
