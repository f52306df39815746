package config

import (
	"os"
	"path/filepath"
	"strings"
)

// Path-valued variables often come from an MCP client's JSON
// configuration, which passes them to the process literally: no shell ever
// expands "~/plugins.json" or "$HOME/state". Every path variable is
// therefore expanded here, once, by the same rule: a leading ~, $HOME or
// ${HOME}, alone or followed by a separator, is the home directory. No
// other variable is expanded (a $NAME left unset would silently become an
// empty string), and ~user is not a form the sidecar resolves.

// homePrefixes are the spellings of the home directory at the start of a
// path.
var homePrefixes = []string{"${HOME}", "$HOME", "~"}

// Home is the home directory that ~ and $HOME stand for in environ: HOME,
// else (Windows) USERPROFILE.
func Home(environ map[string]string) string {
	if h := environ["HOME"]; h != "" {
		return h
	}
	return environ["USERPROFILE"]
}

// ExpandPath expands a leading ~, $HOME or ${HOME} in p to the home
// directory of environ, as Load does for every path variable; cmd uses it
// for --cwd, which MCP clients pass as literally as the variables.
func ExpandPath(p string, environ map[string]string) (string, error) {
	return expandHome(p, Home(environ))
}

// expandHome returns p with its home prefix replaced by home, cleaned; a
// path without one is returned as it is. A home prefix with no usable home
// is an error: guessing would put the path somewhere the user did not mean.
func expandHome(p, home string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", reasonf("%q holds a NUL byte", p)
	}
	rest, ok := cutHome(p)
	if !ok {
		return p, nil
	}
	if !filepath.IsAbs(home) {
		return "", reasonf("%q starts with the home directory, but HOME is not an absolute path", p)
	}
	return filepath.Join(home, rest), nil
}

// cutHome returns what follows a home prefix of p, if p has one.
func cutHome(p string) (string, bool) {
	for _, prefix := range homePrefixes {
		rest, ok := strings.CutPrefix(p, prefix)
		if ok && (rest == "" || rest[0] == '/' || rest[0] == os.PathSeparator) {
			return rest, true
		}
	}
	return "", false
}
