package lsp

import (
	"fmt"
	"os"

	"steerable.dev/sidecar/internal/piped"
	"steerable.dev/sidecar/internal/sandbox"
)

// SandboxLauncher starts servers under the session's sandbox: the
// session's policy made writable only below the server's own directories
// (the workspace and the other writable roots stay readable, and visible
// under bwrap's private /tmp), the network off, the deny list and the
// per-call limits kept. Every server gets the launcher's lifetime
// guarantee: stopping it, or the sidecar's death, ends its whole tree.
type SandboxLauncher struct{ sb *sandbox.Sandbox }

// NewSandboxLauncher launches under sb.
func NewSandboxLauncher(sb *sandbox.Sandbox) *SandboxLauncher { return &SandboxLauncher{sb: sb} }

// Launch implements Launcher.
func (l *SandboxLauncher) Launch(argv []string, dir string, env []string, writable []string) (Process, error) {
	if l.sb.Unavailable() {
		return nil, fmt.Errorf("the session's sandbox refuses to start processes (%s)", l.sb.Summary())
	}
	path, err := piped.LookCommand(argv[0])
	if err != nil {
		return nil, err
	}
	for _, w := range writable {
		if err := os.MkdirAll(w, 0o700); err != nil {
			return nil, err
		}
	}
	pol := l.sb.Policy().WithWritableOnly(writable...).WithNetwork(false)
	argv = append([]string{path}, argv[1:]...)
	p, err := piped.Start(l.sb, sandbox.Command{Argv: argv, Dir: dir, Env: env, Policy: &pol})
	if err != nil {
		return nil, err // not a nil *piped.Process in a non-nil Process
	}
	return p, nil
}
