package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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

type controller string

const (
	ctlMemory controller = "memory"
	ctlPids   controller = "pids"
)

// cgroups is the session's view of the hierarchies it can use.
type cgroups struct {
	version int                   // 2, or 1
	dirs    map[controller]string // the session directory per controller (v2: the same one)
	stale   int                   // session directories of dead sidecars removed at boot

	mu   sync.Mutex
	idle []*callCgroup // emptied cgroups kept for the next calls
}

// callCgroup is one child's cgroup (one directory per v1 hierarchy).
// Creating a memory cgroup costs more than the rest of a call, so an
// emptied one is reused: its limits are set again only when they differ,
// and the kernel's counters are read as deltas from the call's start.
type callCgroup struct {
	owner   *cgroups
	version int
	dirs    map[controller]string
	limits  Limits
	base    [2]int64 // OOM kills and refused forks when the call started
}

// maxIdleCgroups bounds the reusable cgroups a session keeps.
const maxIdleCgroups = 4

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

// openV2 uses the unified hierarchy: the session directory below the
// sidecar's own cgroup, with memory and pids enabled for its children
// where the sidecar's cgroup delegates them.
func openV2(self, mounts, owner string) (*cgroups, error) {
	rel, ok := cgroupPath(self, "")
	mnt := mountPoint(mounts, "cgroup2", "")
	if !ok || mnt == "" {
		return nil, errors.New("no unified hierarchy")
	}
	base := filepath.Join(mnt, rel)
	session := filepath.Join(base, "steerable-"+owner)
	if err := os.Mkdir(session, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	cg := &cgroups{version: 2, dirs: map[controller]string{}}
	cg.stale = removeStaleSessions(base, 2)
	enableV2(base)
	avail, _ := os.ReadFile(filepath.Join(base, "cgroup.subtree_control"))
	for _, c := range []controller{ctlMemory, ctlPids} {
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

// enableV2 asks for memory and pids in base's children; it fails (EBUSY)
// when base holds processes and is not the root, which is fine: then only
// what base already delegates is used.
func enableV2(base string) {
	for _, c := range []controller{ctlMemory, ctlPids} {
		os.WriteFile(filepath.Join(base, "cgroup.subtree_control"), []byte("+"+string(c)), 0)
	}
}

// openV1 uses the memory and pids hierarchies of cgroup v1.
func openV1(self, mounts, owner string) (*cgroups, error) {
	cg := &cgroups{version: 1, dirs: map[controller]string{}}
	var errs []string
	for _, c := range []controller{ctlMemory, ctlPids} {
		rel, ok := cgroupPath(self, string(c))
		mnt := mountPoint(mounts, "cgroup", string(c))
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

// cgroupPath is the sidecar's cgroup in the hierarchy of ctl ("" = v2)
// from /proc/self/cgroup.
func cgroupPath(self, ctl string) (string, bool) {
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

// mountPoint finds the mount of fstype (with ctl among its super options
// for v1) whose root is the hierarchy's root, in /proc/self/mountinfo.
func mountPoint(mounts, fstype, ctl string) string {
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
func (cg *cgroups) has(c controller) bool {
	if cg == nil {
		return false
	}
	_, ok := cg.dirs[c]
	return ok
}

// forCall returns a cgroup for call n with lim in force: an idle one, or
// a new directory. A nil *cgroups gives a nil *callCgroup, whose methods
// do nothing.
func (cg *cgroups) forCall(n uint64, lim Limits) (*callCgroup, error) {
	if cg == nil {
		return nil, nil
	}
	call, err := cg.reuseOrCreate(n)
	if err != nil {
		return nil, err
	}
	if call.limits != lim {
		if err := call.setLimits(lim); err != nil {
			call.destroy()
			return nil, err
		}
		call.limits = lim
	}
	call.base = call.counters()
	return call, nil
}

func (cg *cgroups) reuseOrCreate(n uint64) (*callCgroup, error) {
	cg.mu.Lock()
	if k := len(cg.idle); k > 0 {
		call := cg.idle[k-1]
		cg.idle = cg.idle[:k-1]
		cg.mu.Unlock()
		return call, nil
	}
	cg.mu.Unlock()
	call := &callCgroup{owner: cg, version: cg.version, dirs: map[controller]string{}, limits: Limits{MaxProcs: -1}}
	for c, session := range cg.dirs {
		dir := filepath.Join(session, "call-"+strconv.FormatUint(n, 10))
		if err := os.Mkdir(dir, 0o755); err != nil {
			call.destroy()
			return nil, fmt.Errorf("creating the call's cgroup: %w", err)
		}
		call.dirs[c] = dir
	}
	return call, nil
}

func (c *callCgroup) setLimits(lim Limits) error {
	type knob struct {
		ctl        controller
		v1, v2     string
		value      int64
		enabledFor bool // false: no limit
	}
	for _, k := range []knob{
		{ctlMemory, "memory.limit_in_bytes", "memory.max", lim.MaxMemoryBytes, lim.MaxMemoryBytes > 0},
		{ctlPids, "pids.max", "pids.max", int64(lim.MaxProcs), lim.MaxProcs > 0},
	} {
		dir, ok := c.dirs[k.ctl]
		if !ok {
			continue
		}
		file, value := k.v2, strconv.FormatInt(k.value, 10)
		if c.version == 1 {
			file = k.v1
		}
		if !k.enabledFor {
			value = "max"
			if c.version == 1 && k.ctl == ctlMemory {
				value = "-1"
			}
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
			return fmt.Errorf("setting %s: %w", file, err)
		}
	}
	return nil
}

func (c *callCgroup) has(ctl controller) bool {
	if c == nil {
		return false
	}
	_, ok := c.dirs[ctl]
	return ok
}

// join moves pid into every directory of the call.
func (c *callCgroup) join(pid int) error {
	if c == nil {
		return nil
	}
	for _, dir := range c.uniqueDirs() {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return err
		}
	}
	return nil
}

func (c *callCgroup) uniqueDirs() []string {
	var dirs []string
	for _, d := range c.dirs {
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	return dirs
}

// limitHit names the limit the call hit, from the kernel's counters
// since the call started: an OOM kill in the memory cgroup, a refused
// fork in the pids cgroup.
func (c *callCgroup) limitHit() string {
	if c == nil {
		return ""
	}
	now := c.counters()
	switch {
	case now[0] > c.base[0]:
		return "memory"
	case now[1] > c.base[1]:
		return "processes"
	}
	return ""
}

// counters reads the OOM kills and the refused forks so far.
func (c *callCgroup) counters() [2]int64 {
	var n [2]int64
	memFile := "memory.events"
	if c.version == 1 {
		memFile = "memory.oom_control"
	}
	if dir, ok := c.dirs[ctlMemory]; ok {
		n[0] = counter(filepath.Join(dir, memFile), "oom_kill")
	}
	if dir, ok := c.dirs[ctlPids]; ok {
		n[1] = counter(filepath.Join(dir, "pids.events"), "max")
	}
	return n
}

// counter reads "key N" from a flat-keyed cgroup file (0 when absent).
func counter(file, key string) int64 {
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// killAll kills every process left in the call's cgroups and waits (a
// bounded while) for them to be gone.
func (c *callCgroup) killAll() {
	if c == nil {
		return
	}
	for _, dir := range c.uniqueDirs() {
		killCgroup(dir, c.version)
	}
}

func killCgroup(dir string, version int) {
	if version == 2 {
		os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	}
	for range 200 {
		pids := cgroupProcs(dir)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func cgroupProcs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// remove gives the emptied cgroup back for reuse, or removes its
// directories when enough are idle or a process is still in it.
func (c *callCgroup) remove() {
	if c == nil {
		return
	}
	cg := c.owner
	cg.mu.Lock()
	if len(cg.idle) < maxIdleCgroups && c.empty() {
		cg.idle = append(cg.idle, c)
		cg.mu.Unlock()
		return
	}
	cg.mu.Unlock()
	c.destroy()
}

func (c *callCgroup) empty() bool {
	for _, dir := range c.uniqueDirs() {
		if len(cgroupProcs(dir)) > 0 {
			return false
		}
	}
	return true
}

func (c *callCgroup) destroy() {
	for _, dir := range c.uniqueDirs() {
		rmdirRetry(dir)
	}
}

func rmdirRetry(dir string) {
	for range 50 {
		err := syscall.Rmdir(dir)
		if err == nil || errors.Is(err, syscall.ENOENT) || !errors.Is(err, syscall.EBUSY) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
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
		emptySession(dir, cg.version)
	}
}

// emptySession kills and removes every call cgroup below a session
// directory, then the directory.
func emptySession(session string, version int) {
	entries, _ := os.ReadDir(session)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "call-") {
			dir := filepath.Join(session, e.Name())
			killCgroup(dir, version)
			rmdirRetry(dir)
		}
	}
	killCgroup(session, version)
	rmdirRetry(session)
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
