package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// A program the sidecar runs itself, outside any sandbox — the launcher's
// probe, bwrap, the probe's shell — runs with the sidecar's rights, as
// root in a container. PATH may hold a directory the model writes (an
// activated .venv/bin or node_modules/.bin of the workspace, ".", an empty
// entry), so a name looked up there as exec.LookPath does would run what a
// command planted at the next start. Such a name is resolved only to a
// trusted program: a regular executable file, reached through a directory
// and resolved to a target that both lie outside every writable root, each
// owned by root or the sidecar's user and neither group- nor
// world-writable. A PATH entry that fails is skipped and said so (Summary,
// the boot log). The model's own commands resolve on PATH normally: they
// run inside the sandbox.

// systemDirs are searched after PATH for a trusted program: a sidecar
// started with a PATH that misses them still finds true, bash and bwrap.
var systemDirs = []string{"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"}

// errNotTrusted wraps every reason a file is not a trusted program.
var errNotTrusted = errors.New("not a trusted program")

// LookTrusted resolves name on pathList (PATH's form), then in the system
// directories, to the first trusted program, returned with its symlinks
// resolved (what is checked is what runs). roots are the writable roots.
// skipped names each file called name that was passed over, and why.
func LookTrusted(name, pathList string, roots []string) (path string, skipped []string, err error) {
	roots = resolvedRoots(roots)
	dirs := append(filepath.SplitList(pathList), systemDirs...)
	seen := map[string]bool{}
	for _, dir := range dirs {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		candidate := filepath.Join(dir, name)
		if _, err := os.Lstat(candidate); err != nil {
			continue // not here (an empty entry joins to name: the cwd)
		}
		if dir == "" || !filepath.IsAbs(dir) {
			skipped = append(skipped, fmt.Sprintf("PATH entry %q is relative (the sidecar's cwd), so its %s is not run", dir, name))
			continue
		}
		real, err := trustedProgram(candidate, roots)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s is not run outside the sandbox: %v", candidate, err))
			continue
		}
		return real, skipped, nil
	}
	return "", skipped, fmt.Errorf("%w: no %s on PATH or in %v is a file outside the writable roots, owned by root or the sidecar's user and not group- or world-writable", errNotTrusted, name, systemDirs)
}

// CheckTrusted checks a configured absolute program path
// (STEERABLE_BWRAP_PATH) as LookTrusted checks a PATH entry, and returns
// it resolved.
func CheckTrusted(path string, roots []string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%w: %s is not an absolute path", errNotTrusted, path)
	}
	return trustedProgram(path, resolvedRoots(roots))
}

// trustedProgram checks path's directory, as named and resolved, and its
// resolved target, and returns the target.
func trustedProgram(path string, roots []string) (string, error) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	for _, d := range []string{dir, filepath.Dir(real)} {
		if err := trustedNode(d, roots, true); err != nil {
			return "", err
		}
	}
	return real, trustedNode(real, roots, false)
}

// trustedNode checks one resolved path: outside the roots, owned by root
// or the sidecar's user, not group- or world-writable, and a directory or
// an executable regular file as wantDir says.
func trustedNode(p string, roots []string, wantDir bool) error {
	if within(roots, p) {
		return fmt.Errorf("%w: %s lies in a writable root", errNotTrusted, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	unixModes := runtime.GOOS != "windows" // Windows has no execute or group/world bits
	switch {
	case wantDir && !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory", errNotTrusted, p)
	case !wantDir && !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file", errNotTrusted, p)
	case !wantDir && unixModes && fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%w: %s is not executable", errNotTrusted, p)
	case unixModes && fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%w: %s is group- or world-writable (%s)", errNotTrusted, p, fi.Mode().Perm())
	}
	if uid, known := launch.FileOwner(fi); known && uid != 0 && uid != os.Geteuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not root or the sidecar's user", errNotTrusted, p, uid)
	}
	return nil
}

// resolvedRoots are roots and their symlink-resolved forms.
func resolvedRoots(roots []string) []string {
	out := slices.Clone(roots)
	for _, r := range roots {
		if r == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(r); err == nil && real != r {
			out = append(out, real)
		}
	}
	return slices.DeleteFunc(out, func(r string) bool { return r == "" })
}

// trustRoots are the writable roots a trusted program lies outside: the
// workspace and the system temp dir, which holds the session temp dir and
// run_code's call dirs (known before the session temp dir exists).
func (s *Sandbox) trustRoots() []string {
	return []string{s.opts.Workspace, s.opts.TempParent}
}

// trusted is LookTrusted on the sidecar's PATH, recording what it skipped
// for Summary and UntrustedPrograms.
func (s *Sandbox) trusted(name string) (string, error) {
	path, skipped, err := LookTrusted(name, os.Getenv("PATH"), s.trustRoots())
	s.trustMu.Lock()
	defer s.trustMu.Unlock()
	for _, note := range skipped {
		if !slices.Contains(s.untrusted, note) {
			s.untrusted = append(s.untrusted, note)
		}
	}
	return path, err
}

// probeShell is the probe's shell: a trusted bash (its /dev/tcp tests the
// network), else /bin/sh. The probe's verdict is only as honest as the
// program that reports it.
func (s *Sandbox) probeShell() string {
	if p, err := s.trusted("bash"); err == nil {
		return p
	}
	if p, err := s.trusted("sh"); err == nil {
		return p
	}
	return "/bin/sh"
}

// UntrustedPrograms are the notes of the programs on PATH that the
// sidecar passed over for one it runs itself (boot log, Summary).
func (s *Sandbox) UntrustedPrograms() []string {
	s.waitSelected()
	return s.untrustedNotes()
}

func (s *Sandbox) untrustedNotes() []string {
	s.trustMu.Lock()
	defer s.trustMu.Unlock()
	return slices.Clone(s.untrusted)
}
