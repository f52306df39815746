package tools

import (
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
)

// Deps is what the built-in tools need from the process. cmd fills it from
// the Config; tools never read the environment.
type Deps struct {
	Workspace string // absolute, symlinks resolved
	Host      Host
	Log       zerolog.Logger

	// File tools (registered when Files is set).
	Files                  *files.Workspace
	ReadState              *readstate.Store
	RequireReadBeforeWrite bool  // the hard gate (STEERABLE_REQUIRE_READ_BEFORE_WRITE)
	FileMaxBytes           int64 // STEERABLE_FILE_MAX_BYTES
}

// Builtins is the explicit list of built-in tools, registered with source
// "builtin". Tools that are not configured are simply left out, so a host
// that builds its list from tool.list never advertises a broken tool.
func Builtins(d Deps) []Tool {
	var out []Tool
	if d.Files != nil && d.ReadState != nil {
		out = append(out, newReadFile(d), newWriteFile(d), newEditFile(d), newApplyPatch(d))
	}
	return out
}
