package runcode

import "testing"

func TestSmoke(t *testing.T) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			e := newEnv(t, b, envOpts{})
			out := e.run(t, "import json\nprint('hi')\nr = tools.read_file(path='x')\nreturn {'n': 1+1, 'r': r}", nil)
			t.Logf("%+v done=%+v", out, out.Done)
			t.Log(e.rt.Summary())
		})
	}
}
