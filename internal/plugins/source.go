package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Source discovers plugin specs. Discovery only reads: nothing is started
// or downloaded. An error means the whole source failed (its file or
// directory is missing or unreadable); a bad entry is a Spec with Invalid
// set, reported under its own name.
type Source interface {
	// Name says what the source is, for messages ("plugins config
	// /etc/plugins.json").
	Name() string
	Discover(ctx context.Context) ([]Spec, error)
}

// maxManifestBytes bounds a config file or manifest: they describe
// commands, not data.
const maxManifestBytes = 4 << 20

// Installed is the STEERABLE_PLUGINS_CONFIG source: one JSON file of
// plugins (our "plugins" key, or the "mcpServers" of Claude Desktop and
// Cursor, or VS Code's "servers").
type Installed struct {
	Path    string // absolute
	Decoder Decoder
}

// Name implements Source.
func (s Installed) Name() string { return "plugins config " + s.Path }

// Discover implements Source.
func (s Installed) Discover(context.Context) ([]Spec, error) {
	data, err := readManifest(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("plugins config does not exist: %s (STEERABLE_PLUGINS_CONFIG)", s.Path)
	}
	if err != nil {
		return nil, fmt.Errorf("plugins config %s: %w", s.Path, err)
	}
	return s.Decoder.Config(s.Path, data)
}

// Directory is the STEERABLE_PLUGIN_DIR source: each entry not starting
// with "_" (or ".", hidden files) is one plugin, in filename order — a
// NAME.json manifest, or an executable that is itself the MCP server.
// Subdirectories are not searched.
type Directory struct {
	Path    string // absolute
	Decoder Decoder
}

// Name implements Source.
func (s Directory) Name() string { return "plugin directory " + s.Path }

// Discover implements Source.
func (s Directory) Discover(context.Context) ([]Spec, error) {
	entries, err := os.ReadDir(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("plugin directory does not exist: %s (STEERABLE_PLUGIN_DIR)", s.Path)
	}
	if err != nil {
		return nil, fmt.Errorf("plugin directory %s: %w", s.Path, err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var specs []Spec
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "_") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		specs = append(specs, s.entry(filepath.Join(s.Path, e.Name())))
	}
	return specs, nil
}

// entry turns one directory entry into a Spec. Symlinks are followed.
func (s Directory) entry(path string) Spec {
	base := filepath.Base(path)
	if name, ok := strings.CutSuffix(base, ".json"); ok {
		data, err := readManifest(path)
		if err != nil {
			return Spec{Name: name, Source: SourceDirectory, Origin: path, Invalid: fmt.Errorf("plugin manifest %s: %w", path, err)}
		}
		return s.Decoder.Manifest(name, path, data)
	}
	spec := Spec{Name: base, Source: SourceDirectory, Origin: path, Command: path}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		spec.Invalid = fmt.Errorf("plugin directory entry %s: %w", path, err)
	case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
		spec.Invalid = fmt.Errorf("plugin directory entry %s is neither an executable nor a NAME.json manifest; make it executable, or rename it to _%s to keep it there unloaded", path, base)
	default:
		spec.Invalid = checkName(base)
	}
	return spec
}

// readManifest reads a bounded manifest file.
func readManifest(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > maxManifestBytes {
		return nil, fmt.Errorf("%s is %d bytes; a manifest may have at most %d", path, fi.Size(), maxManifestBytes)
	}
	return os.ReadFile(path)
}
