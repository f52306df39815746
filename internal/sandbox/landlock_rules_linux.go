package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockPresets are go-landlock's configurations by ABI version; the
// sandbox applies the one the kernel reports, strictly (no best effort), so
// a rule the kernel cannot enforce is an error, never a silent downgrade.
var landlockPresets = []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4,
	landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// landlockConfig is the handled access of the ruleset for p: every right
// of the ABI, minus TCP when the network is on, minus the abstract UNIX
// socket scope when UNIX sockets are allowed. Signals stay scoped to the
// sandbox's own domain.
func landlockConfig(abi int, p Policy) (landlock.Config, error) {
	if abi < 1 || abi >= len(landlockPresets) {
		return landlock.Config{}, fmt.Errorf("landlock ABI %d is not one this binary knows", abi)
	}
	cfg := landlockPresets[abi]
	if p.Network {
		cfg.HandledAccessNet = 0
	}
	if p.UnixSockets || p.Network {
		cfg.Scoped &^= llsys.ScopeAbstractUnixSocket
	}
	return cfg, nil
}

// readAccessFS is what "read" grants: list, read and execute.
const (
	readFileAccess = landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSReadFile)
	readDirAccess  = landlock.AccessFSSet(llsys.AccessFSReadDir)
)

// landlockRules turns p into rules. Landlock only allows, so reading
// "everything but DenyRead" is an allowlist: every entry of / is granted,
// except that each ancestor of a denied path is replaced by its own
// entries, recursively, so the denied path alone gets no rule (see
// readAllowlist). Listing stays allowed everywhere (ReadDir on /): the
// names in a denied directory are visible, its contents are not. watched
// are the enumerated directories with their modification times: an entry
// created in one later is not covered until the ruleset is rebuilt.
func landlockRules(abi int, p Policy) (rules []landlock.Rule, watched map[string]time.Time) {
	dirs, files, watched := readAllowlist(p.DenyRead)
	rules = []landlock.Rule{
		landlock.PathAccess(readDirAccess, "/"),
		landlock.PathAccess(readFileAccess|readDirAccess, dirs...).IgnoreIfMissing(),
		landlock.PathAccess(readFileAccess, files...).IgnoreIfMissing(),
	}
	devices := landlock.RWFiles(writableDevices...).IgnoreIfMissing()
	if abi >= 5 {
		devices = devices.WithIoctlDev() // terminal ioctls on /dev/tty
	}
	rules = append(rules, devices)
	if len(p.WritableRoots) > 0 {
		rw := landlock.RWDirs(p.WritableRoots...)
		if abi >= 2 {
			rw = rw.WithRefer() // mv between directories of the workspace
		}
		rules = append(rules, rw)
	}
	if p.UnixSockets && abi >= 9 {
		rules = append(rules, landlock.PathAccess(llsys.AccessFSResolveUnix, "/"))
	}
	return rules, watched
}

// readAllowlist covers / minus deny (absolute, resolved paths): directories
// and files to grant read on, and the directories it had to list.
func readAllowlist(deny []string) (dirs, files []string, watched map[string]time.Time) {
	watched = map[string]time.Time{}
	if len(deny) == 0 {
		return []string{"/"}, nil, watched
	}
	if slices.Contains(deny, "/") {
		return nil, nil, watched
	}
	var walk func(dir string, below []string)
	walk = func(dir string, below []string) {
		if fi, err := os.Stat(dir); err == nil {
			watched[dir] = fi.ModTime()
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return // unreadable: nothing below it is granted (fail closed)
		}
		for _, e := range entries {
			child := filepath.Join(dir, e.Name())
			switch sub, denied := beneath(child, below); {
			case denied:
			case len(sub) > 0:
				walk(child, sub)
			default:
				dirs, files = grant(child, e, deny, dirs, files)
			}
		}
	}
	walk("/", deny)
	return dirs, files, watched
}

// beneath splits deny against child: whether child itself is denied, and
// the denied paths strictly below it.
func beneath(child string, deny []string) (below []string, denied bool) {
	for _, d := range deny {
		switch {
		case d == child:
			return nil, true
		case strings.HasPrefix(d, child+"/"):
			below = append(below, d)
		}
	}
	return below, false
}

// grant adds child to the allowlist as a directory or a file. A symbolic
// link is granted by what it resolves to, and not at all when that is a
// denied path, inside one, or an ancestor of one (it would open the denied
// tree under another name).
func grant(child string, e os.DirEntry, deny, dirs, files []string) ([]string, []string) {
	isDir := e.IsDir()
	if e.Type()&os.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(child)
		if err != nil {
			return dirs, files // dangling
		}
		for _, d := range deny {
			if target == d || strings.HasPrefix(target, d+"/") || strings.HasPrefix(d, target+"/") || target == "/" {
				return dirs, files
			}
		}
		fi, err := os.Stat(target)
		if err != nil {
			return dirs, files
		}
		isDir = fi.IsDir()
	}
	if isDir {
		return append(dirs, child), files
	}
	return dirs, append(files, child)
}

// rulesetCache keeps built rulesets by policy: enumerating an allowlist
// and adding a rule per entry costs more than the rest of a call, and the
// session's policy is the same call after call. A ruleset is rebuilt when a
// directory it enumerated changed.
type rulesetCache struct {
	mu      sync.Mutex
	entries []*ruleset // most recently used last
}

type ruleset struct {
	key     string
	fd      int
	flags   uint32
	watched map[string]time.Time
}

const rulesetCacheSize = 8

// restrict applies the ruleset of p to the calling thread (the caller has
// locked it and set no_new_privs).
func (c *rulesetCache) restrict(abi int, p Policy) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	rs, err := c.get(abi, p)
	if err != nil {
		return err
	}
	return llsys.LandlockRestrictSelf(rs.fd, rs.flags)
}

func (c *rulesetCache) get(abi int, p Policy) (*ruleset, error) {
	key := fmt.Sprintf("%d|%s", abi, p.key())
	for i, rs := range c.entries {
		if rs.key != key {
			continue
		}
		c.entries = append(slices.Delete(c.entries, i, i+1), rs)
		if !rs.stale() {
			return rs, nil
		}
		syscall.Close(rs.fd)
		c.entries = c.entries[:len(c.entries)-1]
		break
	}
	cfg, err := landlockConfig(abi, p)
	if err != nil {
		return nil, err
	}
	rules, watched := landlockRules(abi, p)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return nil, fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	rs := &ruleset{key: key, fd: fd, flags: flags, watched: watched}
	if len(c.entries) == rulesetCacheSize {
		syscall.Close(c.entries[0].fd)
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, rs)
	return rs, nil
}

func (rs *ruleset) stale() bool {
	for dir, mtime := range rs.watched {
		fi, err := os.Stat(dir)
		if err != nil || !fi.ModTime().Equal(mtime) {
			return true
		}
	}
	return false
}

// close releases every cached ruleset.
func (c *rulesetCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range c.entries {
		syscall.Close(rs.fd)
	}
	c.entries = nil
}
