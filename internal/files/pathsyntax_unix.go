//go:build unix

package files

import (
	"path/filepath"
	"strings"
)

// absolute is p as an absolute path: relative paths are taken from the
// workspace root. Any byte but NUL is legal in a Unix name, so nothing else
// is refused here.
func (w *Workspace) absolute(p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	return w.dir + string(filepath.Separator) + p, nil
}

// Within reports whether path is root or below it (both clean and
// absolute).
func Within(root, path string) bool {
	if root == string(filepath.Separator) {
		return true
	}
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}
