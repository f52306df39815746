//go:build unix

package sandbox

import "os/exec"

// findShell is override when set, else bash on PATH, else sh (resolved on
// PATH when a call starts). It fails only for a bad override.
func findShell(override string) (string, error) {
	if override != "" {
		return checkShell(override)
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p, nil
	}
	return "sh", nil
}
