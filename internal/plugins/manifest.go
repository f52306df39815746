package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"steerable.dev/sidecar/protocol"
)

// Decoder turns plugin manifests — the entries of a plugins config file and
// the NAME.json files of a plugin directory — into Specs. Manifests are the
// user's files, but one is often copied from a README, so every field is
// checked and a mistake names the plugin, the field and the fix.
type Decoder struct {
	Expander
}

// The top-level keys that hold plugin entries: ours, then the ones of the
// MCP clients whose files work as they are (Claude Desktop and Cursor use
// mcpServers, a VS Code .vscode/mcp.json uses servers, its settings.json
// mcp.servers).
var entryKeys = []string{"plugins", "mcpServers", "servers"}

// Config decodes a plugins config file (STEERABLE_PLUGINS_CONFIG) found at
// path. A file that is not a JSON object with one of the entry keys is an
// error; an entry that is invalid becomes a Spec with Invalid set, so it is
// reported under its own name while the others load.
func (d Decoder) Config(path string, data []byte) ([]Spec, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, fmt.Errorf("plugins config %s is not a JSON object: %v", path, jsonErr(err, data))
	}
	if mcp, ok := top["mcp"]; ok {
		var nested map[string]json.RawMessage
		if json.Unmarshal(mcp, &nested) == nil && nested["servers"] != nil && top["servers"] == nil {
			top["servers"] = nested["servers"]
		}
	}
	var specs []Spec
	found := false
	for _, key := range entryKeys {
		raw, ok := top[key]
		if !ok {
			continue
		}
		found = true
		entries, err := orderedObject(raw)
		if err != nil {
			return nil, fmt.Errorf("plugins config %s: %q must be an object of NAME: {command, args, env}: %v", path, key, err)
		}
		for _, e := range entries {
			if slices.ContainsFunc(specs, func(s Spec) bool { return s.Name == e.key }) {
				return nil, fmt.Errorf("plugins config %s: plugin %q is defined twice; give each plugin its own name", path, e.key)
			}
			specs = append(specs, d.entry(e.key, SourceInstalled, path, filepath.Dir(path), e.value))
		}
	}
	if !found {
		return nil, fmt.Errorf("plugins config %s has no %q, %q or %q object; write {\"plugins\": {NAME: {\"command\": ..., \"args\": [...]}}}", path, "plugins", "mcpServers", "servers")
	}
	return specs, nil
}

// Manifest decodes one NAME.json of a plugin directory.
func (d Decoder) Manifest(name, path string, data []byte) Spec {
	return d.entry(name, SourceDirectory, path, filepath.Dir(path), data)
}

// entry decodes one plugin entry; a problem becomes Spec.Invalid.
func (d Decoder) entry(name, source, origin, baseDir string, raw []byte) Spec {
	s := Spec{Name: name, Source: source, Origin: origin}
	if err := checkName(name); err != nil {
		s.Invalid = fmt.Errorf("%s: %w", origin, err)
		return s
	}
	if err := d.decodeEntry(&s, baseDir, raw); err != nil {
		s.Invalid = fmt.Errorf("plugin %q in %s: %w", name, origin, err)
	}
	return s
}

func (d Decoder) decodeEntry(s *Spec, baseDir string, raw []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return fmt.Errorf("the entry must be an object {command, args, env}: %v", jsonErr(err, raw))
	}
	ignored, err := checkEntryKeys(fields)
	if err != nil {
		return err
	}
	s.Warnings = ignored
	var cmd, cwd, exposure string
	var args []string
	var env map[string]string
	for _, f := range []struct {
		key  string
		dst  any
		want string
	}{
		{"command", &cmd, "a string"},
		{"args", &args, "a list of strings"},
		{"env", &env, "an object of string values"},
		{"cwd", &cwd, "a string"},
		{"toolPrefix", &s.ToolPrefix, "a string"},
		{"exposure", &exposure, `"direct", "deferred" or "hidden"`},
		{"disabled", &s.Disabled, "true or false"},
	} {
		if err := field(fields, f.key, f.dst, f.want); err != nil {
			return err
		}
	}
	if strings.TrimSpace(cmd) == "" {
		return errors.New(`"command" is missing or empty; name the MCP server's program, e.g. "npx" or "/usr/local/bin/my-server"`)
	}
	if err := d.resolve(s, baseDir, cmd, cwd, args, env); err != nil {
		return err
	}
	if err := setExposure(s, exposure); err != nil {
		return err
	}
	if !prefixPattern().MatchString(s.ToolPrefix) {
		return fmt.Errorf(`"toolPrefix" %q is invalid: use at most 64 letters, digits, '_', '.', ':', '-' (e.g. "fs__")`, s.ToolPrefix)
	}
	s.Sandbox, err = d.sandbox(fields["sandbox"])
	return err
}

// prefixPattern is compiled on first use, not at every start-up.
var prefixPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.:-]{0,64}$`) })

// resolve expands and sets command, args, env and cwd. A command with a
// slash is relative to the manifest's directory; one without is looked up on
// PATH when the plugin starts. A relative cwd is relative to the workspace.
func (d Decoder) resolve(s *Spec, baseDir, cmd, cwd string, args []string, env map[string]string) error {
	var err error
	if s.Command, err = d.path(cmd, "command"); err != nil {
		return err
	}
	if strings.Contains(s.Command, "/") && !filepath.IsAbs(s.Command) {
		s.Command = filepath.Join(baseDir, s.Command)
	}
	for i, a := range args {
		if a, err = d.Expand(a, fmt.Sprintf("args[%d]", i)); err != nil {
			return err
		}
		s.Args = append(s.Args, a)
	}
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env key %q is not a variable name", k)
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		if s.Env[k], err = d.Expand(v, "env."+k); err != nil {
			return err
		}
	}
	if cwd == "" {
		return nil
	}
	if s.Cwd, err = d.path(cwd, "cwd"); err != nil {
		return err
	}
	if !filepath.IsAbs(s.Cwd) {
		s.Cwd = filepath.Join(d.Workspace, s.Cwd)
	}
	return nil
}

func setExposure(s *Spec, exposure string) error {
	e := protocol.Exposure(exposure)
	if exposure != "" && !e.Valid() {
		return fmt.Errorf(`"exposure" %q is not one of "direct", "deferred", "hidden"`, exposure)
	}
	s.Exposure = e
	return nil
}

// sandboxKeys are the keys of a "sandbox" object.
var sandboxKeys = []string{"network", "writable"}

// sandbox decodes "sandbox": absent, "none", or {network, writable}; an
// unknown key is an error, as in the entry: a misspelt "netwrok": true
// must not silently leave the network as it was.
func (d Decoder) sandbox(raw json.RawMessage) (SandboxSpec, error) {
	const want = `"sandbox" must be "none" or {"network": true|false, "writable": ["/abs/dir", ...]}`
	if raw == nil || string(raw) == "null" {
		return SandboxSpec{}, nil
	}
	var word string
	if json.Unmarshal(raw, &word) == nil {
		if word == "none" {
			return SandboxSpec{None: true}, nil
		}
		return SandboxSpec{}, fmt.Errorf("%s, not %q", want, word)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return SandboxSpec{}, fmt.Errorf("%s: %v", want, err)
	}
	if err := unknownKeys(fields, sandboxKeys, sandboxKeys); err != nil {
		return SandboxSpec{}, fmt.Errorf(`"sandbox": %w`, err)
	}
	var obj struct {
		Network  bool      `json:"network"`
		Writable *[]string `json:"writable"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return SandboxSpec{}, fmt.Errorf("%s: %v", want, err)
	}
	out := SandboxSpec{Network: obj.Network}
	if obj.Writable == nil {
		return out, nil
	}
	out.Writable = []string{}
	for i, w := range *obj.Writable {
		p, err := d.path(w, fmt.Sprintf("sandbox.writable[%d]", i))
		if err != nil {
			return SandboxSpec{}, err
		}
		if !filepath.IsAbs(p) {
			return SandboxSpec{}, fmt.Errorf("sandbox.writable[%d] %q is not absolute; write an absolute path, ~/dir or ${workspaceFolder}/dir", i, w)
		}
		out.Writable = append(out.Writable, filepath.Clean(p))
	}
	return out, nil
}

// field decodes fields[key] into dst when present; a value of the wrong
// type names the key and what it should be.
func field(fields map[string]json.RawMessage, key string, dst any, want string) error {
	raw, ok := fields[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%q must be %s, got %.60s", key, want, raw)
	}
	return nil
}

// keyed is one member of a JSON object, in document order.
type keyed struct {
	key   string
	value json.RawMessage
}

// orderedObject returns the members of a JSON object in document order: a
// config's plugins load, and are listed, in the order the file gives them.
// A key given twice is an error.
func orderedObject(raw json.RawMessage) ([]keyed, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []keyed
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // inside an object, Token returns keys as strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("plugin %q is defined twice; give each plugin its own name", key)
		}
		seen[key] = true
		out = append(out, keyed{key, v})
	}
	return out, nil
}

// jsonErr describes a decoding error with its line and column.
func jsonErr(err error, data []byte) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("%v (line %d)", se, line)
	}
	if err == nil {
		return "got null"
	}
	return err.Error()
}
