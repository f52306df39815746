package files

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrDenied is Resolve's refusal of a path in a credential store (the
// sandbox's deny list: ~/.ssh, ~/.aws, …), tested with errors.Is.
var ErrDenied = errors.New("credential store")

// DenyEntry is one path of the deny list: Path absolute with its symlinks
// resolved (a wildcard only in its last component, path/filepath.Match
// syntax), Name as configured ("~/.ssh"), for the message that says how to
// lift it.
type DenyEntry struct {
	Path, Name string
}

// Deny answers "is this resolved path in a credential store?" by lookups,
// never a stat: Match on every path a file tool resolves, Holds on every
// directory a search enters. The paths it is asked about have their
// symlinks resolved already, and so do its entries, so a prefix is a
// containment. On macOS and Windows, whose file systems ignore case by
// default, paths are compared without case (.SSH is .ssh there).
type Deny struct {
	exact    map[string]DenyEntry   // a path → its entry
	patterns map[string][]DenyEntry // a directory → the wildcards of names in it
	above    map[string]struct{}    // every directory an entry lies strictly below
}

// NewDeny indexes entries; nil entries give an empty set.
func NewDeny(entries []DenyEntry) *Deny {
	d := &Deny{exact: map[string]DenyEntry{}, patterns: map[string][]DenyEntry{}, above: map[string]struct{}{}}
	for _, e := range entries {
		p := foldCase(filepath.Clean(e.Path))
		if !filepath.IsAbs(p) {
			continue
		}
		if isPattern(p) {
			dir := filepath.Dir(p)
			d.patterns[dir] = append(d.patterns[dir], DenyEntry{Path: p, Name: e.Name})
			d.above[dir] = struct{}{}
		} else if _, dup := d.exact[p]; !dup {
			d.exact[p] = DenyEntry{Path: filepath.Clean(e.Path), Name: e.Name}
		}
		for a := filepath.Dir(p); ; a = filepath.Dir(a) {
			d.above[a] = struct{}{}
			if a == filepath.Dir(a) {
				break
			}
		}
	}
	return d
}

func isPattern(p string) bool { return strings.ContainsAny(filepath.Base(p), "*?[") }

// caseless: the platform's file systems ignore case by default.
const caseless = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

func foldCase(p string) string {
	if caseless {
		return strings.ToLower(p)
	}
	return p
}

// Empty reports whether nothing is denied.
func (d *Deny) Empty() bool { return d == nil || len(d.exact)+len(d.patterns) == 0 }

// Match returns the entry abs (absolute, clean, symlinks resolved) is or
// lies below. It walks abs's components from the top and stops at the
// first that no entry lies below: a path outside every store's ancestry
// costs a lookup or three.
func (d *Deny) Match(abs string) (DenyEntry, bool) {
	if d.Empty() {
		return DenyEntry{}, false
	}
	abs = foldCase(abs)
	top := len(filepath.VolumeName(abs)) + 1 // "/", or `C:\`
	if len(abs) < top {
		return DenyEntry{}, false
	}
	parent := abs[:top]
	if e, ok := d.exact[parent]; ok {
		return e, true
	}
	for start := top; start < len(abs); {
		if _, below := d.above[parent]; !below {
			return DenyEntry{}, false
		}
		end := strings.IndexByte(abs[start:], filepath.Separator)
		if end < 0 {
			end = len(abs)
		} else {
			end += start
		}
		p := abs[:end]
		if e, ok := d.exact[p]; ok {
			return e, true
		}
		for _, e := range d.patternsIn(parent) {
			if ok, _ := filepath.Match(filepath.Base(e.Path), abs[start:end]); ok {
				return e, true
			}
		}
		parent, start = p, end+1
	}
	return DenyEntry{}, false
}

func (d *Deny) patternsIn(dir string) []DenyEntry {
	if len(d.patterns) == 0 {
		return nil
	}
	return d.patterns[dir]
}

// Holds reports whether an entry lies strictly below dir, or a wildcard
// matches names in it: a walk checks dir's entries with Match only then.
func (d *Deny) Holds(dir string) bool {
	if d.Empty() {
		return false
	}
	_, ok := d.above[foldCase(dir)]
	return ok
}

// deniedError is Resolve's refusal of p, which resolved to abs inside e.
func deniedError(p, abs string, e DenyEntry) error {
	where := e.Name
	if where != e.Path {
		where = fmt.Sprintf("%s (%s)", e.Name, e.Path)
	}
	return fmt.Errorf("%w: %q resolves to %s, inside %s, which no tool reads or writes (the sandbox's deny list); "+
		"leave it alone, or, if the user wants it reachable, they can restart the sidecar with STEERABLE_SANDBOX_ALLOW_READ=%s",
		ErrDenied, p, abs, where, e.Name)
}
