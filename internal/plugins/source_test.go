package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInstalledSource(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plugins.json")
	os.WriteFile(path, []byte(`{"mcpServers":{"b":{"command":"./bin/b"},"a":{"command":"a","args":["x"]}}}`), 0o644)
	got, err := Installed{Path: path, Decoder: testDecoder}.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "b" || got[0].Command != filepath.Join(dir, "bin/b") || got[1].Name != "a" || got[0].Origin != path {
		t.Errorf("specs %+v", got)
	}
	_, err = Installed{Path: filepath.Join(dir, "missing.json")}.Discover(context.Background())
	if err == nil || err.Error() != "plugins config does not exist: "+filepath.Join(dir, "missing.json")+" (STEERABLE_PLUGINS_CONFIG)" {
		t.Errorf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, maxManifestBytes+1), 0o644)
	if _, err := (Installed{Path: big}).Discover(context.Background()); err == nil || !strings.Contains(err.Error(), "a manifest may have at most") {
		t.Errorf("oversized file: %v", err)
	}
	if _, err := (Installed{Path: dir}).Discover(context.Background()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory as the config: %v", err)
	}
}

func TestDirectorySource(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("b-server", "#!/bin/sh\n", 0o755)
	write("a.json", `{"command":"./a-bin","args":["--stdio"],"toolPrefix":"a_"}`, 0o644)
	write("_disabled.json", `{"command":"never"}`, 0o644)
	write(".DS_Store", "", 0o644)
	write("README.md", "notes", 0o644)
	write("broken.json", `{"command":`, 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink(filepath.Join(dir, "b-server"), filepath.Join(dir, "c-link"))
	got, err := Directory{Path: dir, Decoder: testDecoder}.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names, invalid []string
	for _, s := range got {
		names = append(names, s.Name)
		if s.Invalid != nil {
			invalid = append(invalid, s.Name+": "+s.Invalid.Error())
		}
	}
	if diff := cmp.Diff([]string{"README.md", "a", "b-server", "broken", "c-link", "sub"}, names); diff != "" {
		t.Errorf("names in filename order, _ and . skipped (-want +got):\n%s", diff)
	}
	wantInvalid := []string{
		"README.md: plugin directory entry " + dir + "/README.md is neither an executable nor a NAME.json manifest; make it executable, or rename it to _README.md to keep it there unloaded",
		`broken: plugin "broken" in ` + dir + `/broken.json: the entry must be an object {command, args, env}: unexpected end of JSON input (line 1)`,
		"sub: plugin directory entry " + dir + "/sub is neither an executable nor a NAME.json manifest; make it executable, or rename it to _sub to keep it there unloaded",
	}
	if diff := cmp.Diff(wantInvalid, invalid); diff != "" {
		t.Errorf("invalid entries (-want +got):\n%s", diff)
	}
	a := got[1]
	if a.Command != filepath.Join(dir, "a-bin") || a.ToolPrefix != "a_" || a.Source != SourceDirectory || a.Origin != filepath.Join(dir, "a.json") {
		t.Errorf("manifest spec %+v", a)
	}
	if b := got[2]; b.Command != filepath.Join(dir, "b-server") || len(b.Args) != 0 {
		t.Errorf("executable spec %+v", b)
	}

	_, err = Directory{Path: filepath.Join(dir, "nope")}.Discover(context.Background())
	if err == nil || err.Error() != "plugin directory does not exist: "+filepath.Join(dir, "nope")+" (STEERABLE_PLUGIN_DIR)" {
		t.Errorf("missing directory: %v", err)
	}
}

type catalog struct {
	entries []CatalogEntry
	err     error
}

func (c catalog) Entries(context.Context) ([]CatalogEntry, error) { return c.entries, c.err }

func TestRemoteSourceDiscoversOnly(t *testing.T) {
	src := Remote{Origin: "https://market.example", Decoder: testDecoder, Catalog: catalog{entries: []CatalogEntry{
		{Name: "weather", Manifest: json.RawMessage(`{"command":"weather-mcp"}`)},
		{Name: "bad", Manifest: json.RawMessage(`{"url":"https://x"}`)},
	}}}
	got, err := src.Discover(context.Background())
	if err != nil || len(got) != 2 || got[0].Source != SourceRemote || got[0].Origin != "https://market.example" || got[0].Command != "weather-mcp" {
		t.Fatalf("%+v %v", got, err)
	}
	if got[1].Invalid == nil || !strings.Contains(got[1].Invalid.Error(), "remote MCP server") {
		t.Errorf("a URL entry: %v", got[1].Invalid)
	}
	_, err = Remote{Origin: "https://market.example", Catalog: catalog{err: errors.New("offline")}}.Discover(context.Background())
	if err == nil || err.Error() != "remote catalog https://market.example: offline" {
		t.Errorf("catalog error: %v", err)
	}
}

func TestCompiledInSourceChecksEntries(t *testing.T) {
	got, _ := CompiledIn{{Name: "ok", Register: func(Router) error { return nil }}, {Name: "nofunc"}, {Name: "bad name!", Register: func(Router) error { return nil }}}.Discover(context.Background())
	if got[0].Invalid != nil || got[1].Invalid == nil || got[2].Invalid == nil || got[0].Origin != SourceCompiled {
		t.Errorf("%+v", got)
	}
}

// A missing source is a failure of the load, with the source's message.
func TestMissingSourceFailsTheLoad(t *testing.T) {
	f := newFixture(t, "")
	err := f.m.Load(context.Background(), Directory{Path: "/no/such/plugins"})
	if err == nil || !strings.Contains(err.Error(), "plugin directory does not exist: /no/such/plugins") {
		t.Fatalf("%v", err)
	}
	if c := f.m.Check(); c.Status != "error" || !strings.Contains(c.Message, "/no/such/plugins") {
		t.Errorf("check %+v", c)
	}
}
