package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Spec is one language server: the editors' "lspServers" entry.
type Spec struct {
	Name         string            `json:"-"`
	Command      string            `json:"command"`
	Args         []string          `json:"args,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	Languages    []string          `json:"languages,omitempty"`
	FilePatterns []string          `json:"filePatterns"`
	RootMarkers  []string          `json:"rootMarkers,omitempty"`
	// InitializationOptions is sent as initialize's initializationOptions.
	InitializationOptions json.RawMessage `json:"initializationOptions,omitempty"`
	// Settings answers workspace/configuration: the section asked for is
	// looked up in it by its dotted path.
	Settings json.RawMessage `json:"settings,omitempty"`
	// SettleMs is how long the diagnostics of a file must stay unchanged
	// before they are taken as final, for servers that publish them in
	// rounds (typescript-language-server) and carry no version.
	SettleMs int `json:"settleMs,omitempty"`
	// Builtin marks a default found on PATH, not a configured server.
	Builtin bool `json:"-"`
}

type configFile struct {
	LSPServers map[string]*Spec `json:"lspServers"`
}

// LoadFile reads a STEERABLE_LSP_CONFIG file: {"lspServers": {NAME: {command,
// args, env, languages, filePatterns, rootMarkers, initializationOptions,
// settings, settleMs}}}. Errors name the server and the field to fix.
func LoadFile(path string) ([]Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("STEERABLE_LSP_CONFIG: %v", err)
	}
	return ParseConfig(b)
}

// ParseConfig parses the content of a STEERABLE_LSP_CONFIG file.
func ParseConfig(b []byte) ([]Spec, error) {
	var f configFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("STEERABLE_LSP_CONFIG: %v; the file is {\"lspServers\": {NAME: {\"command\": ..., \"filePatterns\": [\"**/*.go\"]}}}", err)
	}
	if f.LSPServers == nil {
		return nil, fmt.Errorf("STEERABLE_LSP_CONFIG: no \"lspServers\" object; the file is {\"lspServers\": {NAME: {...}}}")
	}
	var out []Spec
	for name, sf := range f.LSPServers {
		if sf == nil {
			return nil, fmt.Errorf("STEERABLE_LSP_CONFIG: server %q is null", name)
		}
		s := *sf
		s.Name = name
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("STEERABLE_LSP_CONFIG: server %q: %v", name, err)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s Spec) validate() error {
	if strings.TrimSpace(s.Command) == "" {
		return fmt.Errorf("\"command\" is empty; name the server's program")
	}
	if len(s.FilePatterns) == 0 {
		return fmt.Errorf("\"filePatterns\" is empty; list the files it serves, e.g. [\"**/*.go\"]")
	}
	for _, p := range s.FilePatterns {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("file pattern %q is not a valid glob", p)
		}
	}
	if s.SettleMs < 0 || s.SettleMs > 10000 {
		return fmt.Errorf("\"settleMs\" %d is outside 0..10000", s.SettleMs)
	}
	return nil
}

// Matches reports whether the workspace-relative path (slash-separated) is
// one of the server's files.
func (s Spec) Matches(rel string) bool {
	for _, p := range s.FilePatterns {
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// Defaults are the built-in servers, used only when their program is found
// on PATH outside every writable root (a program the model could have
// written is never run as a server on its behalf).
func Defaults() []Spec {
	return []Spec{
		{Name: "go", Command: "gopls", Languages: []string{"go"}, FilePatterns: []string{"**/*.go"}, RootMarkers: []string{"go.work", "go.mod"}},
		{Name: "python", Command: "pyright-langserver", Args: []string{"--stdio"}, Languages: []string{"python"},
			FilePatterns: []string{"**/*.py", "**/*.pyi"}, RootMarkers: []string{"pyproject.toml", "setup.py", "pyrightconfig.json"}},
		{Name: "python", Command: "basedpyright-langserver", Args: []string{"--stdio"}, Languages: []string{"python"},
			FilePatterns: []string{"**/*.py", "**/*.pyi"}, RootMarkers: []string{"pyproject.toml", "setup.py", "pyrightconfig.json"}},
		{Name: "typescript", Command: "typescript-language-server", Args: []string{"--stdio"},
			Languages:    []string{"typescript", "javascript"},
			FilePatterns: []string{"**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts", "**/*.js", "**/*.jsx", "**/*.mjs", "**/*.cjs"},
			RootMarkers:  []string{"tsconfig.json", "jsconfig.json", "package.json"}, SettleMs: 400,
			// The syntax-only server answers while the project loads, with
			// definitions that stop at the import: wait for the real one.
			InitializationOptions: json.RawMessage(`{"tsserver":{"useSyntaxServer":"never"},"disableAutomaticTypingAcquisition":true}`)},
		{Name: "rust", Command: "rust-analyzer", Languages: []string{"rust"}, FilePatterns: []string{"**/*.rs"}, RootMarkers: []string{"Cargo.toml"}},
		{Name: "c", Command: "clangd", Languages: []string{"c", "cpp"},
			FilePatterns: []string{"**/*.c", "**/*.h", "**/*.cc", "**/*.cpp", "**/*.cxx", "**/*.hpp", "**/*.hh"},
			RootMarkers:  []string{"compile_commands.json", "CMakeLists.txt", ".clangd"}},
	}
}

// Resolve is the servers the session runs: the configured ones, then each
// default whose name is not configured and whose program lookPath finds
// outside every writable root (first found wins, so pyright before
// basedpyright). skipped says, per default left out, why.
func Resolve(configured []Spec, writable []string, lookPath func(string) (string, error)) (out []Spec, skipped []string) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	taken := map[string]bool{}
	for _, s := range configured {
		taken[s.Name] = true
		out = append(out, s)
	}
	for _, d := range Defaults() {
		if taken[d.Name] {
			continue
		}
		p, err := lookPath(d.Command)
		if err != nil {
			continue
		}
		abs, err := filepath.Abs(p)
		if err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
		}
		if root := within(abs, writable); root != "" {
			skipped = append(skipped, fmt.Sprintf("%s (%s is inside the writable %s)", d.Command, abs, root))
			continue
		}
		d.Command, d.Builtin = p, true
		taken[d.Name] = true
		out = append(out, d)
	}
	return out, skipped
}

// within returns the root of roots that holds p, or "".
func within(p string, roots []string) string {
	for _, r := range roots {
		if r == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return r
		}
	}
	return ""
}

// languageID is the LSP languageId of a file, by extension.
func languageID(s Spec, path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".go":
		return "go"
	case ".py", ".pyi":
		return "python"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh":
		return "cpp"
	}
	if len(s.Languages) > 0 {
		return s.Languages[0]
	}
	return "plaintext"
}
