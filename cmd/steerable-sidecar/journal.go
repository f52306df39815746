package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/files"
)

// The apply_patch rollback journal at boot (internal/files, journal.go):
// where it lives, and the rollback of what a crash interrupted.

// journalRoot is the rollback journal's directory under the state
// directory, or "" with the reason it is off. Nothing is created here: the
// journal's directories appear with the first multi-file commit.
func journalRoot(stateDir, workspace string) (string, string) {
	const off = "a crash during a multi-file apply_patch can leave it half applied"
	dir, problem := stateSubdir(stateDir, workspace, "journal")
	if problem != "" {
		return "", "no rollback journal (" + problem + "): " + off
	}
	return dir, "apply_patch rollback journal in " + dir
}

// stateSubdir is the directory name under the state directory, or "" with
// why it cannot be used: the state directory is unset, relative, not
// creatable, or inside the workspace, where the model's commands could
// rewrite it and the file tools would show it (the state is the
// sidecar's, not the workspace's).
func stateSubdir(stateDir, workspace, name string) (string, string) {
	switch {
	case stateDir == "":
		return "", "neither STEERABLE_STATE_DIR, XDG_STATE_HOME nor HOME is set"
	case !filepath.IsAbs(stateDir):
		return "", fmt.Sprintf("STEERABLE_STATE_DIR=%q is not absolute", stateDir)
	}
	dir := filepath.Join(stateDir, name)
	if real, err := realPath(dir); err == nil && files.Within(workspace, real) {
		return "", dir + " is inside the workspace; set STEERABLE_STATE_DIR outside it"
	}
	if err := creatable(dir); err != nil {
		return "", err.Error()
	}
	return dir, ""
}

// realPath resolves the symlinks of the longest existing prefix of p and
// appends the rest.
func realPath(p string) (string, error) {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real, nil
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	real, err := realPath(parent)
	return filepath.Join(real, filepath.Base(p)), err
}

// creatable checks that dir exists or could be created: its nearest
// existing ancestor is a directory this process may write in.
func creatable(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("%s is not a directory", d)
		case err == nil:
			if err := writableDir(d); err != nil {
				return fmt.Errorf("%s is not writable: %v", d, err)
			}
			return nil
		case !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d):
			return err
		}
	}
}

// recoverPatches rolls back the apply_patch commits a crash interrupted
// in this workspace and logs what each restored.
func (a *app) recoverPatches() {
	recs, err := a.files.Recover()
	for _, r := range recs {
		level := zerolog.WarnLevel
		if len(r.Left) > 0 {
			level = zerolog.ErrorLevel // someone's change stands in the way: a person must look
		}
		ev := a.log.WithLevel(level).Str("journal", a.files.Journal()).Str("transaction", r.ID).
			Strs("restored", r.Restored).Strs("removed", r.Removed)
		if len(r.Left) > 0 {
			ev = ev.Strs("left", r.Left).Str("kept", r.KeptDir)
		}
		what := "rolled back an apply_patch that a crash interrupted: "
		if !r.RolledBack {
			what = "finished the cleanup of an apply_patch that a crash interrupted after it completed: "
		}
		ev.Msg(what + r.Summary())
	}
	if err != nil {
		a.log.Error().Err(err).Msg("rolling back interrupted apply_patch commits")
	}
}
