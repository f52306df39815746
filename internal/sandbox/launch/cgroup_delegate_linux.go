package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// An unprivileged sidecar gets per-call cgroups where systemd delegates a
// cgroup v2 subtree to its user (Delegate=: the user manager's tree,
// user@UID.service, and any unit started with Delegate=yes). Two rules of
// the kernel shape what it can do there: a cgroup with processes in it
// cannot hand controllers to its children (no internal processes; only the
// root is exempt), and a process moves between two cgroups only for a
// writer who may write cgroup.procs of their closest common ancestor.
//
//   - Its own cgroup delegated and holding no process but the sidecar (a
//     Delegate=yes service or scope of its own, a container whose cgroup
//     namespace it leads): the sidecar moves itself into a leaf,
//     steerable-OWNER/self, which leaves its cgroup free to hand memory
//     and pids down to the session directory beside that leaf. This is
//     what systemd's delegation documentation prescribes.
//   - Its cgroup shared with others (the host's app scope) inside the user
//     manager's tree: the session directory goes beside it, in the closest
//     ancestor that already enables memory and pids for its children and
//     whose cgroup.procs the sidecar may write (app.slice as a rule). That
//     is a cgroup systemd manages, not one delegated to the sidecar alone;
//     the user manager leaves cgroups it did not create alone and removes
//     them with the slice at logout, and the next start removes those of
//     dead sidecars.
//
// Anything else (a system service without Delegate=, a read-only
// cgroupfs) leaves the sidecar without a writable controller, and the
// rlimits stand in (setRlimits).

// selfLeaf is the leaf below the session directory that a sidecar moves
// itself into.
const selfLeaf = "self"

// delegatedV2 uses base, the sidecar's own cgroup, when it is delegated to
// the sidecar alone: it moves the sidecar into the session's leaf and
// enables memory and pids below base; on any failure it moves back and
// says why.
func delegatedV2(base, owner string) (*cgroups, error) {
	session := filepath.Join(base, "steerable-"+owner)
	leaf := filepath.Join(session, selfLeaf)
	if own := filepath.Dir(filepath.Dir(base)); base == filepath.Join(own, "steerable-"+owner, selfLeaf) {
		return delegatedLeaf(own, owner) // a Sandbox of this process moved it already
	}
	if err := delegable(base, os.Getpid()); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		return nil, err
	}
	pid := []byte(strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), pid, 0); err != nil {
		rmdirRetry(leaf)
		rmdirRetry(session)
		return nil, fmt.Errorf("moving the sidecar into a leaf of its cgroup: %w", err)
	}
	enableV2(base)
	cg, err := delegatedLeaf(base, owner)
	if err == nil {
		return cg, nil
	}
	os.WriteFile(filepath.Join(base, "cgroup.procs"), pid, 0) // the leaf is ours alone: back where it was
	rmdirRetry(leaf)
	rmdirRetry(session)
	return nil, fmt.Errorf("the sidecar's cgroup is delegated, but %v", err)
}

// delegatedLeaf is the session below base, the sidecar's delegated
// cgroup, with the sidecar in its leaf.
func delegatedLeaf(base, owner string) (*cgroups, error) {
	cg, err := sessionV2(base, owner)
	if err != nil {
		return nil, err
	}
	if cg.limits() != 2 {
		return nil, errors.New("its cgroup would not hand memory and pids down")
	}
	cg.self = filepath.Join(base, "steerable-"+owner, selfLeaf)
	cg.where = "delegated: the sidecar moved into a leaf of its own cgroup, " + cg.self
	return cg, nil
}

// delegable says why base cannot be the sidecar's (pid's) own delegated
// cgroup: it lacks the controllers, the sidecar may not write it, or it
// holds other processes.
func delegable(base string, pid int) error {
	others := slices.DeleteFunc(cgroupProcs(base), func(p int) bool { return p == pid })
	switch {
	case !ListsMemoryAndPids(base, "cgroup.controllers"):
		return errors.New("the sidecar's cgroup is not given the memory and pids controllers")
	case !writable(base) || !writable(filepath.Join(base, "cgroup.procs")) || !writable(filepath.Join(base, "cgroup.subtree_control")):
		return errors.New("the sidecar's cgroup is not delegated to its user")
	case len(others) > 0:
		return fmt.Errorf("the sidecar's cgroup holds %d other processes", len(others))
	}
	return nil
}

// userManagerParent is the closest ancestor of base, up to the user
// manager's own cgroup (user@UID.service of the sidecar's uid), that
// enables memory and pids for its children and whose cgroup.procs the
// sidecar may write; "" when base is not in that tree or none does.
func userManagerParent(mnt, base string, uid int) string {
	rel := strings.TrimPrefix(base, mnt)
	marker := "/user@" + strconv.Itoa(uid) + ".service"
	i := strings.Index(rel+"/", marker+"/")
	if i < 0 {
		return ""
	}
	top := mnt + rel[:i+len(marker)]
	for d := filepath.Dir(base); len(d) >= len(top); d = filepath.Dir(d) {
		if ListsMemoryAndPids(d, "cgroup.subtree_control") && writable(d) && writable(filepath.Join(d, "cgroup.procs")) {
			return d
		}
	}
	return ""
}

// writable reports whether this process may write path.
func writable(path string) bool { return unix.Access(path, unix.W_OK) == nil }
