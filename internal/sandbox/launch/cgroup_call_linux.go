package launch

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// One call's cgroup: created (or reused) before the child starts, joined
// while the child is stopped at exec, read for limit hits and emptied when
// the child ends.

// callCgroup is one child's cgroup (one directory per v1 hierarchy).
// Creating a memory cgroup costs more than the rest of a call, so an
// emptied one is reused: its limits are set again only when they differ,
// and the kernel's counters are read as deltas from the call's start —
// which, for a reused cgroup, are the counters its previous call ended
// with (nothing runs in an idle cgroup), so starting a call reads none.
type callCgroup struct {
	owner   *cgroups
	version int
	dirs    map[Controller]string
	limits  Limits
	base    [2]int64 // OOM kills and refused forks when the call started (0 in a new cgroup)
}

// maxIdleCgroups bounds the reusable cgroups a session keeps.
const maxIdleCgroups = 4

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
	call := &callCgroup{owner: cg, version: cg.version, dirs: map[Controller]string{}, limits: Limits{MaxProcs: -1}}
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
		ctl        Controller
		v1, v2     string
		value      int64
		enabledFor bool // false: no limit
	}
	for _, k := range []knob{
		{CtlMemory, "memory.limit_in_bytes", "memory.max", lim.MaxMemoryBytes, lim.MaxMemoryBytes > 0},
		{CtlPids, "pids.max", "pids.max", int64(lim.MaxProcs), lim.MaxProcs > 0},
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
			if c.version == 1 && k.ctl == CtlMemory {
				value = "-1"
			}
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
			return fmt.Errorf("setting %s: %w", file, err)
		}
	}
	return nil
}

func (c *callCgroup) has(ctl Controller) bool {
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
// fork in the pids cgroup. The counters read become the base of the
// cgroup's next call (see killAll).
func (c *callCgroup) limitHit() string {
	if c == nil {
		return ""
	}
	now := c.counters()
	defer func() { c.base = now }()
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
	if dir, ok := c.dirs[CtlMemory]; ok {
		n[0] = counter(filepath.Join(dir, memFile), "oom_kill")
	}
	if dir, ok := c.dirs[CtlPids]; ok {
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
// bounded while) for them to be gone. What they did meanwhile (an OOM
// kill, a refused fork) is not the next call's: the base is read again.
func (c *callCgroup) killAll() {
	if c == nil {
		return
	}
	killed := false
	for _, dir := range c.uniqueDirs() {
		killed = killCgroup(dir, c.version) || killed
	}
	if killed {
		c.base = c.counters()
	}
}

// killCgroup kills the processes of dir and reports whether there were any.
func killCgroup(dir string, version int) bool {
	pids := cgroupProcs(dir)
	if len(pids) == 0 {
		return false
	}
	if version == 2 {
		os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	}
	for range 200 {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
		if pids = cgroupProcs(dir); len(pids) == 0 {
			break
		}
	}
	return true
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

// RemoveCgroup kills the processes of the cgroup dir and removes it (tests
// clean up the cgroups they delegate with it).
func RemoveCgroup(dir string, version int) {
	killCgroup(dir, version)
	rmdirRetry(dir)
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
