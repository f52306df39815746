package lsp

import "steerable.dev/sidecar/internal/piped"

// Launcher starts a server process under the session's sandbox with the
// network off, writing only the listed directories, and guarantees that
// stopping it (or the sidecar's death) ends its whole tree. SandboxLauncher
// is the one the sidecar uses; tests fake it.
type Launcher interface {
	Launch(argv []string, dir string, env []string, writable []string) (Process, error)
}

// Process is a started server.
type Process = piped.Child
