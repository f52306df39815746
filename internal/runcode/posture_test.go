package runcode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/exectest"
	"steerable.dev/sidecar/internal/sandbox"
)

// run_code never runs unconfined: a session without a confining backend
// refuses programs (sandbox_unavailable), and finds no interpreter.
func TestNoConfiningBackendRefuses(t *testing.T) {
	e := newEnv(t, "none", envOpts{})
	_, err := e.rt.Run(context.Background(), Program{Code: "return 1"}, (&recorder{}).dispatch)
	if !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), "runs only under a confining backend") {
		t.Errorf("Run = %v, want sandbox_unavailable", err)
	}
}

// STEERABLE_SIDECAR_CONFINED=1: the host confines the sidecar, the wrap is
// skipped, and the result says so.
func TestConfinedSidecarInheritsItsSandbox(t *testing.T) {
	e := newEnv(t, "none", envOpts{confined: true})
	out := e.run(t, "return 6 * 7", nil)
	if v := value(t, out); v != 42.0 {
		t.Errorf("value %v", v)
	}
	want := sandbox.Inherited
	want.EnvRemoved = e.sb.EnvRemoved(sandbox.EnvAllowlist)
	if diff := cmp.Diff(want, out.Sandbox); diff != "" {
		t.Errorf("sandbox (-want +got):\n%s", diff)
	}
}

func TestCandidatesAreThePython3sOfPath(t *testing.T) {
	root := t.TempDir()
	mk := func(dir string, mode os.FileMode, isDir bool) string {
		d := filepath.Join(root, dir)
		os.MkdirAll(d, 0o755)
		p := filepath.Join(d, "python3")
		if isDir {
			os.Mkdir(p, 0o755)
		} else {
			os.WriteFile(p, []byte("#!/bin/sh\n"), mode)
		}
		return d
	}
	a, noexec, isdir, b := mk("a", 0o755, false), mk("noexec", 0o644, false), mk("isdir", 0, true), mk("b", 0o755, false)
	path := strings.Join([]string{a, "relative/bin", "", noexec, isdir, filepath.Join(root, "missing"), b, a}, ":")
	want := []string{filepath.Join(a, "python3"), filepath.Join(b, "python3")}
	if diff := cmp.Diff(want, Candidates(path)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Each candidate runs in the sandbox; too old, broken or duplicate ones
// are passed over with their reason, and the first that passes its
// self-test is taken.
func TestInterpreterDiscovery(t *testing.T) {
	real := Candidates(os.Getenv("PATH"))
	if len(real) == 0 {
		t.Skip("no python3 on PATH")
	}
	e := anyEnv(t)
	bin := filepath.Join(e.ws, "fake")
	fake := func(name, script string) string {
		d := filepath.Join(bin, name)
		os.MkdirAll(d, 0o755)
		p := filepath.Join(d, "python3")
		exectest.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755)
		return p
	}
	defer os.RemoveAll(bin)
	old := fake("old", `echo '{"executable": "/opt/old/python3.8", "version": [3, 8, 18]}'`)
	broken := fake("broken", `echo 'no such module' >&2; exit 1`)
	silent := fake("silent", `echo hello`)
	rt := e.runtime(envOpts{candidates: []string{old, broken, silent, real[0], real[0]}})
	in, err := rt.Interpreter()
	if err != nil {
		t.Fatal(err)
	}
	if in.Found != real[0] {
		t.Errorf("took %+v", in)
	}
	sum := rt.Summary()
	for _, want := range []string{"python3 " + in.Version + " at " + in.Path, old + ": Python 3.8.18 is older than 3.9",
		broken + ": exit code 1 in the sandbox: no such module", silent + `: does not report its version: "hello"`, "network off"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	none := e.runtime(envOpts{candidates: []string{old}})
	if _, err := none.Interpreter(); !errors.Is(err, ErrNoPython) || !strings.Contains(err.Error(), "older than 3.9") {
		t.Errorf("only an old python: %v", err)
	}
	if _, err := none.Run(context.Background(), Program{Code: "return 1"}, (&recorder{}).dispatch); !errors.Is(err, ErrNoPython) {
		t.Errorf("Run without an interpreter = %v", err)
	}
	empty := e.runtime(envOpts{candidates: []string{}})
	if _, err := empty.Interpreter(); err == nil || !strings.Contains(err.Error(), "no python3 on PATH") {
		t.Errorf("no candidates: %v", err)
	}
}
