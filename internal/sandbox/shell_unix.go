//go:build unix

package sandbox

// findShell is override when set, else the first trusted bash (look:
// Sandbox.trusted, trusted.go), else sh (resolved on PATH when a call
// starts). It fails only for a bad override. The shell runs confined, but
// it is the interpreter of every later command: one the model planted on
// PATH (a workspace .venv/bin) would see and rewrite each of them.
func findShell(override string, look func(string) (string, error)) (string, error) {
	if override != "" {
		return checkShell(override)
	}
	if p, err := look("bash"); err == nil {
		return p, nil
	}
	return "sh", nil
}
