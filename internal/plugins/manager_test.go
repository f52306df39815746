package plugins

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

func TestLoadRegistersServerTools(t *testing.T) {
	f := newFixture(t, "")
	f.load(t, testServer(t, "t"))
	rec := f.record(t, "t")
	if rec.State != protocol.PluginEnabled {
		t.Fatalf("state %s: %s", rec.State, rec.Error)
	}
	modes := map[string]protocol.Mode{}
	for _, d := range f.reg.Descriptors() {
		if d.Source != "plugin:t" || d.Exposure != protocol.ExposureDeferred {
			t.Errorf("%s: source %q exposure %q", d.Name, d.Source, d.Exposure)
		}
		modes[d.Name] = d.Mode
	}
	want := map[string]protocol.Mode{"echo": "read", "plain": "local", "remove_thing": "destructive", "put_thing": "safe_write", "ask_world": "external"}
	for n, m := range want {
		if modes[n] != m {
			t.Errorf("mode of %s = %q, want %q", n, modes[n], m)
		}
	}
	res := f.call(t, "echo", `{"text":"hi"}`)
	if diff := cmp.Diff("hi", res.Message); diff != "" || !res.Success {
		t.Errorf("echo: %+v", res)
	}
	t.Log(rec.Tools)
}
