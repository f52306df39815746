package config

import "path/filepath"

// stateDir is where the sidecar keeps what must outlive a crash (the
// rollback journal of multi-file apply_patch): STEERABLE_STATE_DIR when
// set, else the XDG Base Directory state home ($XDG_STATE_HOME, which the
// spec says to ignore unless absolute, else $HOME/.local/state) with
// "steerable-sidecar" appended; "" when neither is known (no journal).
func stateDir(set Path, env map[string]string) Path {
	switch {
	case set != "":
		return set
	case filepath.IsAbs(env["XDG_STATE_HOME"]):
		return Path(filepath.Join(env["XDG_STATE_HOME"], "steerable-sidecar"))
	case filepath.IsAbs(env["HOME"]):
		return Path(filepath.Join(env["HOME"], ".local", "state", "steerable-sidecar"))
	}
	return ""
}
