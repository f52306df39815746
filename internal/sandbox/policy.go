package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// Policy is what a confined child may do. The zero value allows writing
// nowhere, reading everything, no network and no limits. A Sandbox holds
// the session's policy (Sandbox.Policy); a Command may carry its own,
// usually derived from the session's (With*), for one child.
type Policy struct {
	// WritableRoots are absolute directories the child may write below
	// (the workspace and the session temp dir). Everything else is
	// read-only, except the null-style devices.
	WritableRoots []string
	// ReadOnlyRoots are absolute directories the child reads but does not
	// write, which a backend must not hide: bwrap binds them over its
	// private /tmp (a workspace below /tmp). Every backend reads them anyway.
	ReadOnlyRoots []string
	// Network lets the child open IP sockets.
	Network bool
	// UnixSockets lets the child create AF_UNIX sockets (socket(2)) with
	// the network off. socketpair(2) is always allowed.
	UnixSockets bool
	// DenyRead are absolute, resolved paths (directories or files) whose
	// contents the child cannot read, inside a writable root too (the child
	// cannot write them there either); the last component may be a
	// wildcard (IsDenyPattern). A writable root inside a denied path stays
	// reachable.
	DenyRead []string
	// Limits bound the resources of one child and everything it starts.
	Limits Limits
	// Terminal is the path of the child's own terminal (Command.TTY's
	// follower, /dev/pts/N), the one terminal device it may open by name
	// besides /dev/tty (Landlock; bwrap's /dev holds no other). Set by
	// Start.
	Terminal string
}

// Limits bound one call (SPEC §4.2 "per-call limits"). Zero means no
// limit.
type Limits struct {
	MaxProcs       int   // processes and threads alive at once
	MaxMemoryBytes int64 // resident memory of the whole tree
	TmpBytes       int64 // size of bwrap's private /tmp (a tmpfs; 0: the kernel's default)
}

// perCall are the limits the launcher enforces (TmpBytes is bwrap's).
func (l Limits) perCall() launch.Limits {
	return launch.Limits{MaxProcs: l.MaxProcs, MaxMemoryBytes: l.MaxMemoryBytes}
}

// WithWritable returns p with dirs added to the writable roots (a
// plugin's own data directory, run_code's per-call temp dir).
func (p Policy) WithWritable(dirs ...string) Policy {
	p.WritableRoots = append(slices.Clone(p.WritableRoots), dirs...)
	return p.normalized()
}

// WithWritableOnly returns p writable only below dirs; its writable roots
// become read-only roots, so they stay visible (run_code: the program
// writes only its own temp dir, and the workspace through tools).
func (p Policy) WithWritableOnly(dirs ...string) Policy {
	p.ReadOnlyRoots = append(slices.Clone(p.ReadOnlyRoots), p.WritableRoots...)
	p.WritableRoots = slices.Clone(dirs)
	return p.normalized()
}

// WithNetwork returns p with the network on or off.
func (p Policy) WithNetwork(on bool) Policy {
	p.Network = on
	return p
}

// normalized returns the policy with its roots cleaned, deduplicated and
// sorted by length, so nested roots are bound after their parents, and its
// deny list cleaned and sorted.
func (p Policy) normalized() Policy {
	roots := cleanSorted(p.WritableRoots)
	slices.SortStableFunc(roots, func(a, b string) int { return len(a) - len(b) })
	deny := cleanSorted(p.DenyRead)
	var ro []string
	for _, r := range cleanSorted(p.ReadOnlyRoots) {
		if !within(roots, r) {
			ro = append(ro, r)
		}
	}
	slices.SortStableFunc(ro, func(a, b string) int { return len(a) - len(b) })
	return Policy{WritableRoots: roots, ReadOnlyRoots: ro, Network: p.Network, UnixSockets: p.UnixSockets, DenyRead: deny, Limits: p.Limits,
		Terminal: p.Terminal}
}

// socketsDenied says whether the seccomp filter refuses socket(2): always
// with the network off, AF_UNIX included unless UnixSockets.
func (p Policy) socketsDenied() bool { return !p.Network }

// key identifies the parts of p that shape a Landlock ruleset.
func (p Policy) key() string {
	return fmt.Sprintf("%q|%q|%v|%v|%q", p.WritableRoots, p.DenyRead, p.Network, p.UnixSockets, p.Terminal)
}

func cleanSorted(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, r := range paths {
		out = append(out, filepath.Clean(r))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// within reports whether path is one of roots or below one. Both sides are
// taken as given (the caller resolves symlinks).
func within(roots []string, path string) bool {
	for _, r := range roots {
		if r == path || r == "/" || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}

// Enforcement says how much of a Policy a backend enforces on the running
// system (data._sandbox.enforcement).
type Enforcement string

// The three levels. Full means every rule of the policy holds; partial
// means some rule is not enforced by this kernel or platform; none means
// the child runs with the sidecar's own rights.
const (
	EnforcementFull    Enforcement = "full"
	EnforcementPartial Enforcement = "partial"
	EnforcementNone    Enforcement = "none"
)

// writableDevices are the device files every child may write (SPEC §4.2:
// "/dev/null-style devices"), and its own terminal: /dev/tty always opens
// the caller's controlling terminal, whatever it is, and a command without
// one (bash, run_code: new sessions) cannot open it at all.
var writableDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// terminalDevices are the terminals a command must not open by name: the
// other pseudo-terminals (another bash_session's, the user's own terminal
// emulator's, an ssh login's), the virtual consoles and serial lines, and
// the console and its screen memory. Reading one steals what is typed
// into it; writing one types into it (TIOCSTI aside, output is enough to
// fool a user). bwrap's fresh /dev has none of them; Landlock denies
// them by adding them to the read deny list of its ruleset, granting the
// command's own terminal (Policy.Terminal) and /dev/tty by name.
var terminalDevices = []string{"/dev/pts", "/dev/tty*", "/dev/console", "/dev/vcs*"}
