package runcode

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/exectest"
)

// TestRunnerAcrossPythons runs the runner under each interpreter listed in
// STEERABLE_TEST_PYTHONS (colon-separated paths), else under each of
// pyenv's (~/.pyenv/versions/*/bin/python3; CI has one python3, which
// every other test uses): 3.9 and newer must work, older ones be passed
// over.
func TestRunnerAcrossPythons(t *testing.T) {
	list := filepath.SplitList(os.Getenv("STEERABLE_TEST_PYTHONS"))
	if len(list) == 0 {
		home, _ := os.UserHomeDir()
		list, _ = filepath.Glob(filepath.Join(home, ".pyenv", "versions", "*", "bin", "python3"))
	}
	if len(list) == 0 {
		t.Skip("no other pythons here: set STEERABLE_TEST_PYTHONS to a colon-separated list of interpreters to run the runner under each")
	}
	e := anyEnv(t)
	for _, py := range list {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(py)))+"/"+filepath.Base(py), func(t *testing.T) {
			rt := e.runtime(envOpts{candidates: []string{py}})
			in, err := rt.Interpreter()
			if err != nil {
				if supported(t, py) {
					t.Errorf("a supported interpreter was passed over: %v", err)
				}
				return
			}
			got := value(t, runWith(t, rt, `import json, collections
try:
    import os
except ImportError as e:
    refused = str(e)
r = tools.read_file(path="x")
return [json.dumps(collections.Counter("aab")["a"]), refused, r["success"]]`, nil))
			if diff := cmp.Diff([]any{"2", "import 'os' is not allowed in run_code", true}, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", in.Version, diff)
			}
			if d := failure(t, runWith(t, rt, "x = 1\nreturn x / 0", nil)); d.Line != 2 || d.Error != "ZeroDivisionError: division by zero" {
				t.Errorf("%s: %+v", in.Version, d)
			}
			if d := failure(t, runWith(t, rt, "x = = 1", nil)); d.Kind != KindSyntax || d.Line != 1 {
				t.Errorf("%s: %+v", in.Version, d)
			}
		})
	}
}

// supported says whether py is a Python run_code must accept (≥ 3.9),
// asked of py itself outside any sandbox.
func supported(t *testing.T, py string) bool {
	t.Helper()
	out, err := exec.Command(py, "-c", "import sys; print(sys.version_info[:2] >= (3, 9))").Output()
	return err == nil && strings.TrimSpace(string(out)) == "True"
}

// When no candidate runs, OnNoPython has run by the time the search is
// seen as done (cmd withdraws run_code there: a host that reads
// checks.run_code "not registered" must not find it in tool.list).
func TestOnNoPythonRunsBeforeTheSearchEnds(t *testing.T) {
	e := anyEnv(t)
	old := filepath.Join(e.ws, "old-python3")
	exectest.WriteFile(old, []byte("#!/bin/sh\necho '{\"executable\": \"/opt/python3.8\", \"version\": [3, 8, 18]}'\n"), 0o755)
	withdrawn := make(chan struct{})
	rt := New(Options{Sandbox: e.sb, Workspace: e.ws, Candidates: []string{old}, OnNoPython: func() { close(withdrawn) }})
	rt.Start()
	<-rt.Checked()
	select {
	case <-withdrawn:
	default:
		t.Fatal("the search ended before OnNoPython ran")
	}
	if _, err := rt.Interpreter(); !errors.Is(err, ErrNoPython) {
		t.Errorf("Interpreter() = %v, want ErrNoPython", err)
	}
}
