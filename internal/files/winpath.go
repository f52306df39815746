package files

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Windows path syntax, for Resolve on Windows (pathsyntax_windows.go). It
// is plain string code, compiled on every platform so the tests run on
// Linux against the same logic a Windows build uses.
//
// A model on Windows sends "src\main.go", "src/main.go", "C:\repo\x",
// "\x", "\\server\share\x", and sometimes what the Win32 layer treats
// specially. winPath turns the first kinds into an absolute, clean path
// (then confined like any other) and refuses the rest, saying why:
//
//   - device and verbatim prefixes (\\?\, \\.\, \??\): they switch off the
//     normalisation below and reach devices and raw volumes;
//   - drive-relative paths ("C:x"): relative to a per-drive current
//     directory the sidecar does not have;
//   - a ':' after the drive: "file.txt:stream" names an NTFS alternate
//     data stream, a second content hidden behind the file;
//   - reserved device names (CON, PRN, AUX, NUL, COM0-9, LPT0-9 and their
//     superscript forms, CONIN$, CONOUT$), with or without an extension:
//     they open the device, in any directory;
//   - names ending in a dot or a space: Windows drops them, so "a.txt."
//     would write "a.txt" behind the back of the read-state checks;
//   - the characters Windows forbids in names (< > " | ? * and controls).
//
// ".." is applied lexically, as the Win32 layer itself does before the
// file system sees the path. A UNC path keeps its \\server\share volume;
// the confinement check that follows (winWithin, case-insensitive as NTFS
// is) refuses it unless the workspace lives on that share.

// winPath is p, relative to the workspace ws (absolute, Windows syntax)
// or absolute, as an absolute clean Windows path.
func winPath(ws, p string) (string, error) {
	p = strings.ReplaceAll(p, "/", `\`)
	if prefix := winDevicePrefix(p); prefix != "" {
		return "", fmt.Errorf("%w: %q starts with the device prefix %s, which reaches devices and raw volumes; pass a plain path such as src\\main.go or C:\\repo\\main.go", ErrInvalidPath, p, prefix)
	}
	vol, rest, err := winVolume(p)
	switch {
	case err != nil:
		return "", fmt.Errorf("%w: %q: %v", ErrInvalidPath, p, err)
	case vol == "" && strings.HasPrefix(rest, `\`): // rooted on the workspace's drive
		vol, _, _ = winVolume(ws)
	case vol == "":
		vol, rest, _ = winVolume(ws + `\` + p)
	}
	parts, err := winComponents(rest)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrInvalidPath, p, err)
	}
	return vol + `\` + strings.Join(parts, `\`), nil
}

// winDevicePrefix is the verbatim or device prefix p starts with, if any.
func winDevicePrefix(p string) string {
	for _, prefix := range []string{`\\?\`, `\\.\`, `\??\`} {
		if strings.HasPrefix(p, prefix) {
			return prefix
		}
	}
	return ""
}

// winVolume splits p (backslashes only) into its volume — "C:" or
// "\\server\share" — and the rest. A relative or rooted path has no
// volume.
func winVolume(p string) (vol, rest string, err error) {
	if len(p) >= 2 && p[1] == ':' && isDriveLetter(p[0]) {
		if len(p) > 2 && p[2] != '\\' {
			return "", "", fmt.Errorf("%s is relative to the current directory of drive %s; pass an absolute path (%s\\...) or one relative to the workspace", p, p[:2], p[:2])
		}
		return strings.ToUpper(p[:2]), p[2:], nil
	}
	if !strings.HasPrefix(p, `\\`) {
		return "", p, nil
	}
	server, after, _ := strings.Cut(p[2:], `\`)
	share, tail, _ := strings.Cut(after, `\`)
	if server == "" || share == "" {
		return "", "", fmt.Errorf("a UNC path needs a server and a share (\\\\server\\share\\...)")
	}
	return `\\` + server + `\` + share, `\` + tail, nil
}

func isDriveLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// winComponents splits the part of a path after its volume into checked
// components, ".." and "." applied.
func winComponents(rest string) ([]string, error) {
	var parts []string
	for _, c := range strings.Split(rest, `\`) {
		switch c {
		case "", ".":
			continue
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
			continue
		}
		if err := winCheckName(c); err != nil {
			return nil, err
		}
		parts = append(parts, c)
	}
	return parts, nil
}

// winCheckName refuses a path component Windows would not store as given.
func winCheckName(c string) error {
	if !utf8.ValidString(c) {
		return fmt.Errorf("%q is not valid UTF-8", c)
	}
	if i := strings.IndexByte(c, ':'); i >= 0 {
		return fmt.Errorf("%q: a ':' in a name selects an NTFS alternate data stream (%q of %q); pass the file's own name", c, c[i+1:], c[:i])
	}
	if i := strings.IndexAny(c, `<>"|?*`); i >= 0 {
		return fmt.Errorf("%q: Windows does not allow %q in a file name", c, c[i])
	}
	for _, r := range c {
		if r < 0x20 {
			return fmt.Errorf("%q: Windows does not allow control characters in a file name", c)
		}
	}
	if last := c[len(c)-1]; last == '.' || last == ' ' {
		return fmt.Errorf("%q ends in %q, which Windows drops (it would name %q); pass the name without it", c, last, strings.TrimRight(c, ". "))
	}
	if winReserved(c) {
		return fmt.Errorf("%q is a reserved device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9), in every directory and with any extension; choose another name", c)
	}
	return nil
}

// winReserved reports whether the name, up to its first dot and without
// trailing spaces, is a DOS device name.
func winReserved(c string) bool {
	base, _, _ := strings.Cut(c, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 || (base[:3] != "COM" && base[:3] != "LPT") {
		return false
	}
	switch base[3:] {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3":
		return true
	}
	return false
}

// winWithin reports whether path is root or below it, both absolute clean
// Windows paths, compared without case as NTFS does.
func winWithin(root, path string) bool {
	root = strings.TrimSuffix(root, `\`)
	if len(path) < len(root) || !strings.EqualFold(path[:len(root)], root) {
		return false
	}
	return len(path) == len(root) || path[len(root)] == '\\'
}
