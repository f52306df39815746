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

// landlockRules turns p into rules. Landlock only allows, and a rule on
// a directory grants its whole subtree, so "everything but DenyRead and the
// terminals" (terminalDevices) is an allowlist: every entry of / is granted read, except that each ancestor
// of a denied path is replaced by its own entries, recursively, so the
// denied path alone gets no rule (see readAllowlist). Listing stays
// allowed everywhere (ReadDir on /): the names in a denied directory are
// visible, its contents are not.
//
// A writable root is granted whole unless a denied path lies below it;
// then the same way, entry by entry (writeAllowlist): every entry of the
// root but the denied ones is writable, while the root itself and each
// directory between it and a denied path are not. The price, which no
// ruleset avoids: a command cannot create, rename or remove an entry
// directly in those directories (a new file at the workspace's top level
// when the workspace is a home); the file tools can, and the ruleset is
// rebuilt to cover what they create. bwrap, which auto prefers, has no
// such limit.
//
// watched are the enumerated directories with their modification times:
// an entry created in one later is not covered until the ruleset is
// rebuilt.
func landlockRules(abi int, p Policy) (rules []landlock.Rule, watched map[string]time.Time) {
	dirs, files, watched := readAllowlist(append(slices.Clone(p.DenyRead), terminalDevices...))
	rules = []landlock.Rule{
		landlock.PathAccess(readDirAccess, "/"),
		landlock.PathAccess(readFileAccess|readDirAccess, dirs...).IgnoreIfMissing(),
		landlock.PathAccess(readFileAccess, files...).IgnoreIfMissing(),
	}
	devices := landlock.RWFiles(writableDevices...).IgnoreIfMissing()
	if p.Terminal != "" {
		devices = landlock.RWFiles(append(slices.Clone(writableDevices), p.Terminal)...).IgnoreIfMissing()
	}
	if abi >= 5 {
		devices = devices.WithIoctlDev() // terminal ioctls on /dev/tty
	}
	rules = append(rules, devices)
	whole, rwDirs, rwFiles := writeAllowlist(p.WritableRoots, p.DenyRead, watched)
	if len(whole) > 0 {
		rules = append(rules, withRefer(abi, landlock.RWDirs(whole...)))
	}
	if len(rwDirs) > 0 {
		rules = append(rules, withRefer(abi, landlock.RWDirs(rwDirs...).IgnoreIfMissing()))
	}
	if len(rwFiles) > 0 {
		rules = append(rules, landlock.RWFiles(rwFiles...).IgnoreIfMissing())
	}
	if p.UnixSockets && abi >= 9 {
		rules = append(rules, landlock.PathAccess(llsys.AccessFSResolveUnix, "/"))
	}
	return rules, watched
}

// withRefer lets mv move entries between directories of a writable tree.
func withRefer(abi int, r landlock.FSRule) landlock.FSRule {
	if abi >= 2 {
		return r.WithRefer()
	}
	return r
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
	enumerate("/", deny, watched, func(child string, e os.DirEntry) {
		dirs, files = grant(child, e, deny, dirs, files)
	})
	return dirs, files, watched
}

// writeAllowlist grants the writable roots: whole the ones no denied path
// lies below, else entry by entry (symbolic links aside: a link is
// written through, under its target's rules), recording the directories
// it listed in watched.
func writeAllowlist(roots, deny []string, watched map[string]time.Time) (whole, dirs, files []string) {
	for _, r := range roots {
		var below []string
		for _, d := range deny {
			if strings.HasPrefix(d, r+"/") || r == "/" && d != "/" {
				below = append(below, d)
			}
		}
		if len(below) == 0 {
			whole = append(whole, r)
			continue
		}
		enumerate(r, below, watched, func(child string, e os.DirEntry) {
			switch {
			case e.Type()&os.ModeSymlink != 0:
			case e.IsDir():
				dirs = append(dirs, child)
			default:
				files = append(files, child)
			}
		})
	}
	return whole, dirs, files
}

// enumerate lists dir and, recursively, each entry that is an ancestor of
// a path of deny, calling each for every entry that is neither denied nor
// such an ancestor: together they cover dir minus deny.
func enumerate(dir string, deny []string, watched map[string]time.Time, each func(child string, e os.DirEntry)) {
	if fi, err := os.Stat(dir); err == nil {
		watched[dir] = fi.ModTime()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // unreadable: nothing below it is granted (fail closed)
	}
	for _, e := range entries {
		child := filepath.Join(dir, e.Name())
		switch sub, denied := beneath(child, deny); {
		case denied:
		case len(sub) > 0:
			enumerate(child, sub, watched, each)
		default:
			each(child, e)
		}
	}
}

// beneath splits deny against child: whether child itself is denied (is
// an entry, or matches a wildcard one), and the denied paths strictly
// below it.
func beneath(child string, deny []string) (below []string, denied bool) {
	for _, d := range deny {
		switch {
		case denyMatches(d, child):
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
			if deniedBy(d, target) || strings.HasPrefix(d, target+"/") || target == "/" {
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
