package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"steerable.dev/sidecar/internal/sandbox"
)

// A plugin's manifest may grant its server rights that bash does not have:
// no sandbox, the network while the session's is off, writes outside the
// workspace, credentials in its environment. The model writes the
// workspace (file tools) and the session temp dir (bash's TMPDIR), so a
// privileged server whose code lies there — its manifest, its program, a
// script among its arguments, or its cwd, where npx, node and python -m
// resolve packages first — would run code the model planted with those
// rights. Such a plugin is refused at start, naming what the model could
// write and the fix. An unprivileged one runs confined like bash, wherever
// its code is.

// privileges are the rights p grants beyond the session's policy.
func (p *plugin) privileges(pol Policy) []string {
	var out []string
	if pol.None {
		return []string{`"sandbox": "none"`}
	}
	if pol.Network && !p.m.opts.Network {
		out = append(out, "the network")
	}
	for _, w := range pol.Writable {
		if !p.modelWritable(w) {
			out = append(out, "writes to "+w)
		}
	}
	var creds []string
	for k, v := range p.spec.Env {
		if sandbox.IsCredential(k, v) {
			creds = append(creds, k)
		}
	}
	if len(creds) > 0 {
		slices.Sort(creds)
		out = append(out, "the credentials "+strings.Join(creds, ", "))
	}
	return out
}

// exposedCode lists the parts of p's code the model can write: its
// manifest, its program, files among its arguments (absolute or relative
// to dir), and its cwd dir.
func (p *plugin) exposedCode(dir string) []string {
	var out []string
	if p.spec.Source == SourceInstalled || p.spec.Source == SourceDirectory {
		if p.modelWritable(p.spec.Origin) {
			out = append(out, "its manifest "+p.spec.Origin)
		}
	}
	if cmd, err := lookPath(p.spec.Command); err == nil && p.modelWritable(cmd) {
		out = append(out, "its program "+cmd)
	}
	for _, a := range p.spec.Args {
		path := a
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && p.modelWritable(path) {
			out = append(out, "its file "+a)
		}
	}
	if p.modelWritable(dir) {
		out = append(out, "its cwd "+dir)
	}
	return out
}

// checkExposure refuses a privileged plugin whose code the model can
// write.
func (p *plugin) checkExposure(pol Policy, dir string) error {
	granted := p.privileges(pol)
	if len(granted) == 0 {
		return nil
	}
	exposed := p.exposedCode(dir)
	if len(exposed) == 0 {
		return nil
	}
	return fmt.Errorf("its manifest grants %s, which bash does not have, but the model can write %s (in the workspace or the session temp dir), so it could run code of its own with them; move the server, its files and its manifest outside the workspace and set \"cwd\" outside it (e.g. \"~/\")",
		strings.Join(granted, ", "), strings.Join(exposed, ", "))
}

// modelWritable reports whether path is in the workspace or the session
// temp dir, symlinks resolved as far as they exist.
func (p *plugin) modelWritable(path string) bool {
	path = resolveExisting(path)
	for _, root := range []string{p.m.opts.Workspace, p.m.opts.TempDir} {
		if root == "" {
			continue
		}
		root = resolveExisting(root)
		if path == root || strings.HasPrefix(path, root+"/") {
			return true
		}
	}
	return false
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// path (made absolute and clean).
func resolveExisting(path string) string {
	path, _ = filepath.Abs(path)
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(path)
		if parent == path {
			return filepath.Join(path, rest)
		}
		rest = filepath.Join(filepath.Base(path), rest)
		path = parent
	}
}
