package sandbox

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DefaultDenyRead are the well-known credential stores whose contents no
// child and no file tool may read (SPEC §4.2), "~/" standing for the
// sidecar's home — $HOME and the passwd entry's home, both when they
// differ. Every backend that can denies them, inside the writable roots
// too: bwrap masks them, Landlock leaves them out of its allowlists,
// Seatbelt denies file-read*; the file tools refuse them (files.Deny).
var DefaultDenyRead = []string{
	// Keys and cloud, cluster and registry credentials.
	"~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.kube", "~/.docker/config.json",
	"~/.netrc", "~/.npmrc", "~/.pypirc", "~/.git-credentials", "~/.config/gh", "~/.config/hub",
	"~/.password-store", "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials",
	"~/.terraform.d/credentials.tfrc.json", "~/.vault-token", "~/.config/op", "~/.config/rclone",
	"~/.pgpass", "~/.my.cnf", "~/.oci", "~/.ibmcloud", "~/.config/doctl", "~/.s3cfg", "~/.boto",
	"~/.m2/settings.xml", "~/.gradle/gradle.properties", "~/.composer/auth.json", "~/.bundle/config",
	// AI assistants' and model hubs' tokens.
	"~/.config/github-copilot", "~/.codex", "~/.claude", "~/.claude.json", "~/.config/anthropic",
	"~/.huggingface/token", "~/.cache/huggingface/token",
	// Browser profiles (cookies, saved passwords) and keyrings.
	"~/.mozilla", "~/.config/google-chrome", "~/.config/chromium", "~/.config/BraveSoftware",
	"~/.config/microsoft-edge", "~/.config/vivaldi", "~/.config/opera", "~/snap/firefox", "~/snap/chromium",
	"~/.var/app/org.mozilla.firefox", "~/.var/app/com.google.Chrome", "~/.local/share/keyrings",
	// macOS keychains and browser data.
	"~/Library/Keychains", "~/Library/Cookies", "~/Library/Safari",
	"~/Library/Application Support/Google/Chrome", "~/Library/Application Support/Firefox",
	"~/Library/Application Support/BraveSoftware",
}

// rootDenyRead are denied too when the sidecar runs as root (anyone else
// cannot read them anyway): password hashes, TLS and SSH host keys, root's
// shell histories. A wildcard (only ever in the last component) matches
// the names in its directory now and later (IsDenyPattern).
var rootDenyRead = []string{"/etc/shadow", "/etc/gshadow", "/etc/ssl/private", "/etc/ssh/ssh_host_*_key", "/root/.*_history"}

// IsDenyPattern reports whether a deny entry is a wildcard: its last
// component holds *, ? or [ (path/filepath.Match syntax); the components
// above it never do (config refuses that).
func IsDenyPattern(entry string) bool {
	return strings.ContainsAny(filepath.Base(entry), "*?[")
}

// denyMatches reports whether path is the deny entry itself, or matches
// it when it is a wildcard (both absolute and clean).
func denyMatches(entry, path string) bool {
	if !IsDenyPattern(entry) {
		return entry == path
	}
	if filepath.Dir(entry) != filepath.Dir(path) {
		return false
	}
	ok, _ := filepath.Match(filepath.Base(entry), filepath.Base(path))
	return ok
}

// deniedBy reports whether p is the denied path d (or matches it) or
// lies below it.
func deniedBy(d, p string) bool {
	if !IsDenyPattern(d) {
		return p == d || strings.HasPrefix(p, d+"/")
	}
	dir := filepath.Dir(d)
	prefix := dir
	if dir != "/" {
		prefix += "/"
	}
	rest, ok := strings.CutPrefix(p, prefix)
	first, _, _ := strings.Cut(rest, "/")
	return ok && first != "" && denyMatches(d, filepath.Join(dir, first))
}

// DenyOptions are the inputs of the session's deny list.
type DenyOptions struct {
	Home     string // the sidecar's $HOME ("" or "/": skipped)
	UserHome string // the passwd entry's home, when it differs
	// LookupUserHome sets UserHome (UserHome()) when the list is resolved:
	// the lookup reads /etc/passwd (or asks NSS), which start-up need not
	// wait for.
	LookupUserHome bool
	Extra          []string // STEERABLE_SANDBOX_DENY_READ, parsed
	Allow          []string // STEERABLE_SANDBOX_ALLOW_READ, parsed: the entries equal to or inside one are lifted
	Root           bool     // the sidecar runs as uid 0
}

// UserHome is the home directory the passwd entry (or NSS) gives the
// effective uid, "" when there is none. It differs from $HOME under
// `sudo -E`, in systemd units and on hosts that set HOME for their
// children; the deny list covers both.
func UserHome() string {
	u, err := user.LookupId(strconv.Itoa(os.Geteuid()))
	if err != nil {
		return ""
	}
	return u.HomeDir
}

// homes are the distinct usable homes of o.
func (o DenyOptions) homes() []string {
	var out []string
	for _, h := range []string{o.Home, o.UserHome} {
		if h == "" || !filepath.IsAbs(h) {
			continue
		}
		if h = filepath.Clean(h); h != "/" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// DenyEntry is one resolved path of the deny list: Path is absolute with
// its symlinks resolved (a wildcard's directory resolved), Name is the
// entry as configured ("~/.ssh"), for messages that name what to lift.
type DenyEntry struct {
	Path, Name string
}

// denyList is the session's deny list, resolved: the entries, the paths
// that exist now (data._sandbox.denyRead), and notes for checks.sandbox.
type denyList struct {
	entries        []DenyEntry
	paths, present []string
	notes          []string
	// inRoot are the present paths inside a writable root: masked there
	// too, and named in checks.sandbox.
	inRoot []string
}

// ResolveDeny is the deny list of o: every default (and, for a root
// sidecar, rootDenyRead) and extra entry, each "~/" entry once per home,
// minus the allowed ones, resolved.
func ResolveDeny(o DenyOptions) []DenyEntry {
	return resolveDenyList(o, nil).entries
}

// LexicalDeny is the deny list of o before any look at the file system:
// each "~/" entry once per home (o.Home, and o.UserHome if set), minus the
// entries inside one of STEERABLE_SANDBOX_ALLOW_READ, no symlink
// resolved. It costs no system call (a check at start-up uses it);
// ResolveDeny's answer is the one that holds.
func LexicalDeny(o DenyOptions) []DenyEntry {
	var out []DenyEntry
	entries := slices.Concat(DefaultDenyRead, o.Extra)
	if o.Root {
		entries = append(entries, rootDenyRead...)
	}
	allowed := expandAll(o.Allow, o.homes())
	for _, e := range entries {
		for _, p := range expandHomes(e, o.homes()) {
			if !lifted(p, allowed) {
				out = append(out, DenyEntry{Path: p, Name: e})
			}
		}
	}
	return out
}

// Homes are the distinct usable homes of o, the passwd entry's looked up
// if o says so.
func (o DenyOptions) Homes() []string {
	if o.LookupUserHome {
		o.UserHome = UserHome()
	}
	return o.homes()
}

// WorkspaceProblem says why dir (absolute, symlinks resolved) must not be
// a workspace under the deny list entries, nil when it may: it is the
// filesystem root; it is, or lies inside, a credential store; or it holds
// one of homes whole while nothing is denied (homes nil: not checked).
// The message says which directories are acceptable.
func WorkspaceProblem(entries []DenyEntry, homes []string, dir string) error {
	const acceptable = "a workspace is a project directory: not /, not inside a credential store of the deny list, " +
		"and not holding a whole home while the deny list is empty"
	if filepath.Dir(dir) == dir {
		return fmt.Errorf("%s is the filesystem root, which is never the workspace (%s)", dir, acceptable)
	}
	if e := DeniedWorkspace(entries, dir); e != nil {
		return fmt.Errorf("%w (%s)", WorkspaceDeniedError(dir, *e), acceptable)
	}
	if len(entries) > 0 {
		return nil
	}
	for _, h := range homes {
		if h == dir || strings.HasPrefix(h, dir+"/") {
			return fmt.Errorf("%s holds the home %s whole while the deny list is empty (STEERABLE_SANDBOX_ALLOW_READ lifted every entry), "+
				"so every credential in it would be readable (%s)", dir, h, acceptable)
		}
	}
	return nil
}

// resolveDenyList expands, resolves and checks the deny entries against
// the writable roots. A path inside a root is denied all the same (bwrap
// masks it, Landlock grants the root around it); a root inside a denied
// path stays reachable, and the notes say so.
func resolveDenyList(o DenyOptions, roots []string) denyList {
	var d denyList
	if o.LookupUserHome {
		o.UserHome = UserHome()
	}
	if len(o.homes()) == 0 {
		d.notes = append(d.notes, "HOME is unset or / and the user has no home: the ~/ credential stores are not denied")
	}
	for _, e := range LexicalDeny(o) {
		d.add(e, roots, slices.Contains(o.Extra, e.Name))
	}
	if len(d.inRoot) > 0 {
		d.notes = append(d.notes, "denied inside a writable root (hidden from commands, refused by the file tools): "+strings.Join(d.inRoot, ", "))
	}
	return d
}

// expandAll expands every entry of list for every home.
func expandAll(list, homes []string) []string {
	var out []string
	for _, e := range list {
		out = append(out, expandHomes(e, homes)...)
	}
	return out
}

// lifted reports whether the denied path p is, or lies below, an entry of
// STEERABLE_SANDBOX_ALLOW_READ (expanded): allowing a directory lifts every
// store inside it.
func lifted(p string, allowed []string) bool {
	for _, a := range allowed {
		if a == p || a == "/" || strings.HasPrefix(p, a+"/") {
			return true
		}
	}
	return false
}

func (d *denyList) add(e DenyEntry, roots []string, extra bool) {
	matches := existing(&e)
	if len(matches) == 0 && extra {
		d.notes = append(d.notes, fmt.Sprintf("deny path %s does not exist (denied if it appears)", e.Path))
	}
	if slices.ContainsFunc(d.entries, func(x DenyEntry) bool { return x.Path == e.Path }) {
		return
	}
	for _, m := range matches {
		if slices.Contains(d.present, m) {
			continue
		}
		if containsRoot(m, roots) {
			d.notes = append(d.notes, fmt.Sprintf("a writable root is inside denied %s: only that root is reachable there", m))
		}
		if within(roots, m) {
			d.inRoot = append(d.inRoot, m)
		}
	}
	d.entries = append(d.entries, e)
	d.paths = append(d.paths, e.Path)
	for _, m := range matches {
		if !slices.Contains(d.present, m) {
			d.present = append(d.present, m)
		}
	}
}

// existing resolves e.Path (a wildcard: its directory) and returns the
// paths that exist now: the path itself, or a wildcard's matches.
func existing(e *DenyEntry) []string {
	if IsDenyPattern(e.Path) {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(e.Path)); err == nil {
			e.Path = filepath.Join(dir, filepath.Base(e.Path))
		}
		matches, _ := filepath.Glob(e.Path)
		return matches
	}
	real, err := filepath.EvalSymlinks(e.Path)
	if err != nil {
		return nil
	}
	e.Path = real
	return []string{real}
}

func containsRoot(p string, roots []string) bool {
	for _, r := range roots {
		if r == p || strings.HasPrefix(r, p+"/") {
			return true
		}
	}
	return false
}

// expandHomes turns "~/x", and an absolute entry inside one of homes,
// into home/x for each home; any other absolute entry is itself. A ~ entry
// without a usable home expands to nothing.
func expandHomes(e string, homes []string) []string {
	rest, tilde := strings.CutPrefix(e, "~")
	for _, h := range homes {
		// config has expanded a user's ~/x to $HOME/x: it too stands for
		// every home.
		if r, ok := strings.CutPrefix(e, h+"/"); ok && !tilde {
			rest, tilde = "/"+r, true
		}
	}
	if !tilde {
		return []string{e}
	}
	out := make([]string, 0, len(homes))
	for _, h := range homes {
		out = append(out, filepath.Join(h, rest))
	}
	return out
}

// DeniedWorkspace is the entry of entries that dir is, or lies inside
// (nil when none): such a directory is never a workspace.
func DeniedWorkspace(entries []DenyEntry, dir string) *DenyEntry {
	for _, e := range entries {
		if deniedBy(e.Path, dir) {
			return &e
		}
	}
	return nil
}

// WorkspaceDeniedError says that dir is a credential store, or inside one,
// and how to make it a workspace anyway.
func WorkspaceDeniedError(dir string, e DenyEntry) error {
	return fmt.Errorf("the workspace %s lies inside the credential store %s (%s), which no tool may read; "+
		"pick a project directory, or lift the entry with STEERABLE_SANDBOX_ALLOW_READ=%s", dir, e.Path, e.Name, e.Name)
}
