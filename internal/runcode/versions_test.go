package runcode

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunnerAcrossPythons runs the runner under each interpreter listed in
// STEERABLE_TEST_PYTHONS (colon-separated paths; CI has one python3, which
// every other test uses): 3.9 and newer must work, older ones be passed
// over.
func TestRunnerAcrossPythons(t *testing.T) {
	list := filepath.SplitList(os.Getenv("STEERABLE_TEST_PYTHONS"))
	if len(list) == 0 {
		t.Skip("set STEERABLE_TEST_PYTHONS to a colon-separated list of interpreters to run the runner under each")
	}
	e := anyEnv(t)
	for _, py := range list {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(py)))+"/"+filepath.Base(py), func(t *testing.T) {
			rt := e.runtime(envOpts{candidates: []string{py}})
			in, err := rt.Interpreter()
			if err != nil {
				t.Logf("passed over: %v", err)
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
