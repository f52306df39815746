package main

import (
	"os/exec"

	"github.com/rogpeppe/go-internal/testscript"
)

// asUnprivileged: Windows has no uid to drop to; a script's sidecar runs
// as the test's user (unprivileged_test.go).
func asUnprivileged(*testscript.TestScript, *exec.Cmd) {}
