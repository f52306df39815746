package files

// absolute is p as an absolute, clean path by the Windows rules (winPath):
// forward slashes accepted, device prefixes, drive-relative paths,
// alternate data streams, reserved device names and names Windows would
// alter refused with the reason.
func (w *Workspace) absolute(p string) (string, error) { return winPath(w.dir, p) }

// Within reports whether path is root or below it (both clean and
// absolute), without case as NTFS compares names.
func Within(root, path string) bool { return winWithin(root, path) }
