package plugins

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Expander resolves the placeholders MCP client configs use, so a VS Code
// .vscode/mcp.json or a Cursor file works unchanged: ${env:NAME} (the
// sidecar's environment; this is how a manifest names a credential without
// writing it down), ${workspaceFolder}, ${userHome}, and a leading ~/ in
// paths. ${input:...} needs VS Code's prompt and is refused.
type Expander struct {
	Workspace string
	Home      string
	// LookupEnv reads the sidecar's environment (cmd passes os.LookupEnv);
	// nil treats every variable as unset.
	LookupEnv func(string) (string, bool)
}

var placeholder = regexp.MustCompile(`\$\{([A-Za-z]+)(?::([^}]*))?\}`)

// Expand replaces the placeholders in s; what names the field in errors.
func (x Expander) Expand(s, what string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var err error
	out := placeholder.ReplaceAllStringFunc(s, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		v, e := x.value(sub[1], sub[2])
		if e != nil && err == nil {
			err = fmt.Errorf("%s: %s: %w", what, m, e)
		}
		return v
	})
	return out, err
}

func (x Expander) value(kind, arg string) (string, error) {
	switch kind {
	case "env":
		if x.LookupEnv != nil {
			if v, ok := x.LookupEnv(arg); ok {
				return v, nil
			}
		}
		return "", fmt.Errorf("the variable %s is not set in the sidecar's environment", arg)
	case "workspaceFolder":
		return x.Workspace, nil
	case "userHome":
		return x.Home, nil
	case "input":
		return "", fmt.Errorf("input placeholders need VS Code's prompt; write the value, or ${env:NAME}")
	}
	return "", fmt.Errorf("unknown placeholder; use ${env:NAME}, ${workspaceFolder} or ${userHome}")
}

// path expands s and a leading ~/ (the home directory).
func (x Expander) path(s, what string) (string, error) {
	s, err := x.Expand(s, what)
	if err != nil {
		return "", err
	}
	if s == "~" || strings.HasPrefix(s, "~/") {
		if x.Home == "" {
			return "", fmt.Errorf("%s: %q starts with ~ but the home directory is unknown", what, s)
		}
		s = filepath.Join(x.Home, s[1:])
	}
	return s, nil
}
