package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"steerable.dev/sidecar/internal/piped"
	"steerable.dev/sidecar/internal/sandbox"
)

// A plugin's manifest may grant its server rights that bash does not have:
// no sandbox, the network while the session's is off, writes outside the
// workspace, credentials in its environment. The model writes the
// workspace (file tools) and the session temp dir (bash's TMPDIR), so a
// privileged server whose code lies there — its manifest, its program, a
// script or a directory of modules among its arguments, a path in a
// variable that makes an interpreter or the linker load code (PYTHONPATH,
// NODE_OPTIONS, LD_PRELOAD, …), or its cwd, where npx, node and python -m
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
// manifest, its program, the paths among its arguments (a script, a
// directory of modules, --flag=/path; absolute or relative to dir), the
// paths in the environment variables that make an interpreter or the
// dynamic linker load code (codeLoadingEnv), and its cwd dir.
func (p *plugin) exposedCode(dir string) []string {
	var out []string
	if p.spec.Source == SourceInstalled || p.spec.Source == SourceDirectory {
		if p.modelWritable(p.spec.Origin) {
			out = append(out, "its manifest "+p.spec.Origin)
		}
	}
	if cmd, err := piped.LookCommand(p.spec.Command); err == nil && p.modelWritable(cmd) {
		out = append(out, "its program "+cmd)
	}
	for _, a := range p.spec.Args {
		if path, ok := p.writablePath(dir, argPaths(a)); ok {
			out = append(out, pathKind(path)+" "+a)
		}
	}
	names := make([]string, 0, len(p.spec.Env))
	for k := range p.spec.Env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !loadsCode(k) {
			continue
		}
		if path, ok := p.writablePath(dir, envPaths(p.spec.Env[k])); ok {
			out = append(out, fmt.Sprintf("its environment %s (%s)", k, path))
		}
	}
	if p.modelWritable(dir) {
		out = append(out, "its cwd "+dir)
	}
	return out
}

// writablePath is the first of paths the model can write: an absolute one
// anywhere in a writable root (existing or not: the model could create
// it), a relative one (to dir) that exists there.
func (p *plugin) writablePath(dir string, paths []string) (string, bool) {
	for _, path := range paths {
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
			if _, err := os.Stat(path); err != nil {
				continue
			}
		}
		if p.modelWritable(path) {
			return path, true
		}
	}
	return "", false
}

// pathKind names what an argument points at, for the error.
func pathKind(path string) string {
	switch fi, err := os.Stat(path); {
	case err != nil:
		return "its path"
	case fi.IsDir():
		return "its directory"
	}
	return "its file"
}

// argPaths are the paths an argument may name: itself, the value of a
// --flag=value, and the path glued to a short option (-r/path,
// -javaagent:/path).
func argPaths(a string) []string {
	out := []string{}
	if !strings.HasPrefix(a, "-") {
		out = append(out, a)
	}
	if _, v, ok := strings.Cut(a, "="); ok && v != "" {
		out = append(out, v)
	}
	if strings.HasPrefix(a, "-") {
		if i := strings.IndexByte(a, '/'); i > 0 {
			out = append(out, a[i:])
		}
	}
	return out
}

// envPaths are the paths in the value of a code-loading variable: the
// entries of a path list (':' on Unix, ';' on Windows) and the paths among
// the words of an options string (NODE_OPTIONS="--require /p",
// JAVA_TOOL_OPTIONS="-javaagent:/p.jar").
func envPaths(v string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' || r == ';' }) {
		if strings.HasPrefix(w, "-") {
			out = append(out, argPaths(w)...)
			continue
		}
		out = append(out, filepath.SplitList(w)...)
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// codeLoadingEnv names the variables through which a path makes a program
// run code from it: interpreters' module paths and start-up files, the
// dynamic linker's preloads and library paths, the JVM's agents, the
// shell's start-up files, and HOME and XDG_CONFIG_HOME (git's hooks and
// fsmonitor, every tool's rc file). A name ending in one of
// codeLoadingSuffixes counts too (GEM_PATH, LUA_CPATH, MAVEN_OPTS).
var codeLoadingEnv = []string{"PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "LD_PRELOAD", "LD_AUDIT",
	"DYLD_INSERT_LIBRARIES", "GEM_HOME", "BUNDLE_GEMFILE", "NPM_CONFIG_PREFIX", "NPM_CONFIG_USERCONFIG", "R_LIBS",
	"R_LIBS_USER", "PHPRC", "PHP_INI_SCAN_DIR", "BASH_ENV", "ENV", "ZDOTDIR", "HOME", "XDG_CONFIG_HOME",
	"XDG_DATA_HOME", "GIT_CONFIG_GLOBAL", "GIT_EXEC_PATH", "RUSTC_WRAPPER", "CARGO_HOME", "DENO_DIR"}

var codeLoadingSuffixes = []string{"PATH", "LIB", "OPTIONS", "OPTS", "OPT", "PRELOAD"}

// loadsCode reports whether the variable can make the server load code.
func loadsCode(name string) bool {
	up := strings.ToUpper(name)
	if slices.Contains(codeLoadingEnv, up) {
		return true
	}
	for _, s := range codeLoadingSuffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	return false
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
