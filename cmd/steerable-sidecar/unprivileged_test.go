//go:build unix

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/exectest"
)

// A script that sets SIDECAR_UNPRIVILEGED=1 plays a desktop host: its
// sidecar runs as an unprivileged user, without a writable cgroup. As
// root (CI) that is uid 65534, from a copy of this binary it can run, with
// the script's work directory given to it; as any other user the sidecar
// is unprivileged already and runs as is. SIDECAR_UNPRIVILEGED_BIN_DIR
// chooses where the copy goes.
const unprivilegedUID = 65534

// asUnprivileged makes cmd run as uid 65534 when the script asks for it
// and the tests run as root.
func asUnprivileged(ts *testscript.TestScript, cmd *exec.Cmd) {
	if ts.Getenv("SIDECAR_UNPRIVILEGED") != "1" || os.Geteuid() != 0 {
		return
	}
	bin := ts.Getenv("SIDECAR_UNPRIVILEGED_BIN")
	if bin == "" {
		bin = copyForUnprivileged(ts, cmd.Path)
		ts.Setenv("SIDECAR_UNPRIVILEGED_BIN", bin)
	}
	cmd.Path, cmd.Args[0] = bin, bin
	work := ts.Getenv("WORK")
	for d := filepath.Dir(work); d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			os.Chmod(d, fi.Mode().Perm()|0o111) // reachable, not listable
		}
	}
	for _, dir := range []string{work, work + ".race", work + ".state"} {
		os.MkdirAll(dir, 0o755)
		filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				os.Lchown(p, unprivilegedUID, unprivilegedUID)
			}
			return nil
		})
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: unprivilegedUID, Gid: unprivilegedUID}}
}

// copyForUnprivileged copies the test binary, as steerable-sidecar, into a
// directory every user can reach, removed when the script ends, or into
// SIDECAR_UNPRIVILEGED_BIN_DIR (a script that wants it in its workspace).
func copyForUnprivileged(ts *testscript.TestScript, from string) string {
	dir := ts.Getenv("SIDECAR_UNPRIVILEGED_BIN_DIR")
	if dir == "" {
		var err error
		dir, err = os.MkdirTemp("/var/tmp", "steerable-e2e-unprivileged-")
		ts.Check(err)
		ts.Defer(func() { os.RemoveAll(dir) })
	}
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "steerable-sidecar")
	ts.Check(exectest.CopyFile(from, bin, 0o755))
	return bin
}
