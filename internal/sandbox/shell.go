package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The shell the bash tool runs: STEERABLE_BASH_PATH when set (it must be an
// absolute path to an executable), else the platform's (shell_unix.go:
// bash on PATH, else sh; shell_windows.go: the bash.exe of Git for Windows
// or MSYS2). On Windows, without one the bash tool is not registered and
// checks.sandbox says why.

// ErrNoShell means no shell was found for the bash tool.
var ErrNoShell = errors.New("no bash found")

// checkShell validates a configured shell path.
func checkShell(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("STEERABLE_BASH_PATH %q is not an absolute path", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("STEERABLE_BASH_PATH: %w", err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("STEERABLE_BASH_PATH %s is a directory; name the bash executable", path)
	}
	return path, nil
}

// windowsShellCandidates are the places a Windows bash.exe is looked for,
// in order, from the environment: Git for Windows (machine-wide, 32-bit,
// per-user) — its bin\bash.exe sets up the MSYS environment (PATH with the
// Unix tools) — then MSYS2 at its default roots.
func windowsShellCandidates(getenv func(string) string) []string {
	var out []string
	add := func(base string, rel ...string) {
		if base != "" {
			out = append(out, strings.Join(append([]string{strings.TrimRight(base, `\`)}, rel...), `\`))
		}
	}
	add(getenv("ProgramFiles"), "Git", "bin", "bash.exe")
	add(getenv("ProgramW6432"), "Git", "bin", "bash.exe")
	add(getenv("ProgramFiles(x86)"), "Git", "bin", "bash.exe")
	add(getenv("LOCALAPPDATA"), "Programs", "Git", "bin", "bash.exe")
	drive := getenv("SystemDrive")
	if drive == "" {
		drive = "C:"
	}
	add(drive, "msys64", "usr", "bin", "bash.exe")
	add(drive, "msys32", "usr", "bin", "bash.exe")
	return dedupeFold(out)
}

// wslBash reports whether path is WSL's bash.exe launcher (in the Windows
// system directory or a WindowsApps alias): it runs the command in a Linux
// VM with another file system view and none of this sidecar's confinement,
// so it is never the bash tool's shell.
func wslBash(path, systemRoot string) bool {
	p := strings.ToLower(strings.ReplaceAll(path, "/", `\`))
	if systemRoot != "" {
		root := strings.ToLower(strings.TrimRight(systemRoot, `\`))
		if strings.HasPrefix(p, root+`\system32\`) || strings.HasPrefix(p, root+`\sysnative\`) {
			return true
		}
	}
	return strings.Contains(p, `\microsoft\windowsapps\`)
}

func dedupeFold(paths []string) []string {
	var out []string
	for _, p := range paths {
		dup := false
		for _, q := range out {
			dup = dup || strings.EqualFold(p, q)
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}
