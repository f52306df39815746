package lsp

import (
	"io"
	"time"
)

// Launcher starts a server process under the session's sandbox with the
// network off, writing only the listed directories, and guarantees that
// stopping it (or the sidecar's death) ends its whole tree. cmd adapts the
// plugins' sandbox launcher to it; this package does not import plugins,
// which imports the tools that import this package.
type Launcher interface {
	Launch(argv []string, dir string, env []string, writable []string) (Process, error)
}

// Process is a started server (plugins.Process satisfies it).
type Process interface {
	Stdin() io.WriteCloser
	Stdout() io.ReadCloser
	Stderr() io.ReadCloser
	// Done is closed once the process has exited and been reaped.
	Done() <-chan struct{}
	// Exit describes how it ended; valid after Done.
	Exit() string
	// Stop: SIGTERM, up to grace, then the whole tree is killed.
	Stop(grace time.Duration)
}
