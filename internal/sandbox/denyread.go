package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultDenyRead are the well-known credential stores whose contents no
// child may read (SPEC §4.2), "~/" standing for the sidecar's $HOME. Every
// backend that can denies them: bwrap masks them, Landlock leaves them out
// of its read allowlist, Seatbelt denies file-read*.
var DefaultDenyRead = []string{
	// Keys and cloud, cluster and registry credentials.
	"~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.kube", "~/.docker/config.json",
	"~/.netrc", "~/.npmrc", "~/.pypirc", "~/.git-credentials", "~/.config/gh", "~/.config/hub",
	"~/.password-store", "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials",
	"~/.terraform.d/credentials.tfrc.json", "~/.vault-token", "~/.config/op", "~/.config/rclone",
	"~/.pgpass", "~/.my.cnf",
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
// cannot read them anyway).
var rootDenyRead = []string{"/etc/shadow", "/etc/gshadow"}

// DenyOptions are the inputs of the session's deny list.
type DenyOptions struct {
	Home  string   // the sidecar's $HOME ("" or "/": the ~/ entries are skipped)
	Extra []string // STEERABLE_SANDBOX_DENY_READ, parsed
	Allow []string // STEERABLE_SANDBOX_ALLOW_READ, parsed: defaults lifted
	Root  bool     // the sidecar runs as uid 0
}

// denyList is the session's deny list, resolved: the paths to deny, the
// ones that exist now (data._sandbox.denyRead), and notes for
// checks.sandbox about entries that do not do what they say.
type denyList struct {
	paths, present, notes []string
}

// resolveDenyList expands, resolves and checks the deny entries against
// the writable roots: a path inside a root is not denied (the workspace is
// never masked), a root inside a denied path stays reachable.
func resolveDenyList(o DenyOptions, roots []string) denyList {
	var d denyList
	entries := slices.Concat(DefaultDenyRead, o.Extra)
	if o.Root {
		entries = append(entries, rootDenyRead...)
	}
	home := filepath.Clean(o.Home)
	if o.Home == "" || home == "/" {
		d.notes = append(d.notes, "HOME is unset or /: the ~/ credential stores are not denied")
	}
	for _, e := range entries {
		if slices.Contains(o.Allow, e) {
			continue
		}
		p, ok := expandHome(e, o.Home)
		if !ok || slices.Contains(o.Allow, p) {
			continue
		}
		d.add(p, roots, slices.Contains(o.Extra, e))
	}
	return d
}

func (d *denyList) add(p string, roots []string, extra bool) {
	real, err := filepath.EvalSymlinks(p)
	exists := err == nil
	if exists {
		p = real
	} else if extra {
		d.notes = append(d.notes, fmt.Sprintf("deny path %s does not exist (denied if it appears)", p))
	}
	switch {
	case within(roots, p):
		if exists {
			d.notes = append(d.notes, fmt.Sprintf("%s is not denied: it is inside a writable root (the workspace is never masked)", p))
		}
		return
	case exists && containsRoot(p, roots):
		d.notes = append(d.notes, fmt.Sprintf("the workspace is inside denied %s: only the workspace is reachable there", p))
	}
	if slices.Contains(d.paths, p) {
		return
	}
	d.paths = append(d.paths, p)
	if exists {
		d.present = append(d.present, p)
	}
}

func containsRoot(p string, roots []string) bool {
	for _, r := range roots {
		if strings.HasPrefix(r, p+"/") {
			return true
		}
	}
	return false
}

// expandHome turns "~/x" into home/x; ok is false when there is no usable
// home for a ~ entry.
func expandHome(e, home string) (string, bool) {
	rest, tilde := strings.CutPrefix(e, "~")
	if !tilde {
		return e, true
	}
	if home == "" || filepath.Clean(home) == "/" || !filepath.IsAbs(home) {
		return "", false
	}
	return filepath.Join(home, rest), true
}
