package sandbox

import (
	"fmt"
	"os"
	"os/exec"
)

// findShell is override when set, else the first bash.exe of
// windowsShellCandidates that exists, else a bash.exe on PATH that is not
// WSL's. Windows has no sandbox, so the shell runs with the sidecar's
// rights like every command: look (trusted.go's owner and mode checks are
// Unix ones) is not used.
func findShell(override string, _ func(string) (string, error)) (string, error) {
	if override != "" {
		return checkShell(override)
	}
	for _, p := range windowsShellCandidates(os.Getenv) {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("bash.exe"); err == nil && !wslBash(p, os.Getenv("SystemRoot")) {
		return p, nil
	}
	return "", fmt.Errorf("%w: install Git for Windows (git-scm.com) or MSYS2, or set STEERABLE_BASH_PATH to a bash.exe (WSL's bash is never used)", ErrNoShell)
}
