package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Errors of Resolve, tested with errors.Is (ErrDenied too). Their messages
// say what to do.
var (
	ErrEscapes     = errors.New("path escapes the workspace")
	ErrInvalidPath = errors.New("invalid path")
)

// maxLinks bounds symlink hops, as the kernel's ELOOP limit does.
const maxLinks = 40

// Resolve turns a model-supplied path (relative to the workspace, or
// absolute) into an absolute, clean path with every symlink resolved. The
// file need not exist; its missing tail is appended as given. With
// confinement on, a result outside the workspace is refused; a result in
// a credential store (WithDeny) always is. On Windows
// the path is first checked and made absolute by the Windows rules
// (winpath.go).
func (w *Workspace) Resolve(p string) (string, error) {
	switch {
	case strings.TrimSpace(p) == "": // a name of only spaces is legal on disk, but never what a model means
		return "", fmt.Errorf("%w: the path is empty (%q); pass a file path relative to the workspace %s", ErrInvalidPath, p, w.dir)
	case strings.IndexByte(p, 0) >= 0:
		return "", fmt.Errorf("%w: %q contains a NUL byte; pass a plain file path", ErrInvalidPath, p)
	}
	start, err := w.absolute(p)
	if err != nil {
		return "", err
	}
	real, err := resolveLinks(start)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrInvalidPath, p, err)
	}
	if w.confine && !Within(w.dir, real) {
		return "", fmt.Errorf("%w %s: %q resolves to %s; use a path inside the workspace", ErrEscapes, w.dir, p, real)
	}
	if e, denied := w.Deny().Match(real); denied {
		return "", deniedError(p, real, e)
	}
	return real, nil
}

// resolveLinks resolves every symlink in the absolute path abs, component
// by component: ".." applies to the resolved prefix (as in the kernel, not
// lexically), a link's target is spliced in front of the remaining
// components. A missing component ends the walk; the rest is appended
// lexically, which is exact because nothing below a missing directory can be
// a symlink.
func resolveLinks(abs string) (string, error) {
	vol := filepath.VolumeName(abs) // "" but on Windows
	rest := splitPath(abs[len(vol):])
	cur := vol + string(filepath.Separator)
	links := 0
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		if part == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return missingTail(next, rest)
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink != 0:
			if links++; links > maxLinks {
				return "", fmt.Errorf("more than %d symlinks in a row (a loop?) at %s", maxLinks, next)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if filepath.IsAbs(target) {
				vol = filepath.VolumeName(target)
				cur, target = vol+string(filepath.Separator), target[len(vol):]
			}
			rest = append(splitPath(target), rest...)
		default:
			cur = next
		}
	}
	return cur, nil
}

// missingTail appends the components below a missing one. ".." there would
// need the missing directory to exist, as it would for the kernel.
func missingTail(missing string, rest []string) (string, error) {
	for _, r := range rest {
		if r == ".." {
			return "", fmt.Errorf("%s does not exist, so %q cannot be applied below it", missing, "..")
		}
	}
	return filepath.Join(append([]string{missing}, rest...)...), nil
}

// splitPath splits p at separators, dropping empty and "." components.
func splitPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, string(filepath.Separator)) {
		if part != "" && part != "." {
			out = append(out, part)
		}
	}
	return out
}
