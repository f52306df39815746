package plugins

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"steerable.dev/sidecar/internal/piped"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// SandboxLauncher starts plugin servers with the session's sandbox (the
// backend bash runs under), each with the plugin's own policy derived from
// the session's: its writable directories and network setting replace the
// session's, while the deny list, the socket rule and the per-call limits
// carry over. Every server gets the launcher's lifetime guarantee (a PID
// namespace of its own, else a cgroup or a subreaper): when it is stopped,
// or the sidecar dies, nothing it started survives.
//
// A manifest's sandbox:"none" runs the server with the sidecar's rights
// (sandbox.Command.Unconfined), with the same lifetime guarantee.
type SandboxLauncher struct {
	sb *sandbox.Sandbox
}

// NewSandboxLauncher launches under sb.
func NewSandboxLauncher(sb *sandbox.Sandbox) *SandboxLauncher {
	return &SandboxLauncher{sb: sb}
}

// ErrSandboxUnavailable means the session's sandbox refuses every child
// (STEERABLE_SANDBOX_REQUIRE=1, or a named backend that does not work): no
// plugin starts, not even one that opted out.
var ErrSandboxUnavailable = errors.New("sandbox_unavailable: the session's sandbox refuses to start processes")

// Launch implements Launcher.
func (l *SandboxLauncher) Launch(in Launch) (Process, error) {
	if l.sb.Unavailable() {
		return nil, fmt.Errorf("%w (%s)", ErrSandboxUnavailable, l.sb.Summary())
	}
	path, err := piped.LookCommand(in.Argv[0])
	if err != nil {
		return nil, err
	}
	if !in.Policy.None && l.sb.Info().Backend == "bwrap" {
		if err := visibleInBwrap(in.Policy.Writable, append([]string{path, in.Dir}, hostPaths(in.Argv[1:])...)...); err != nil {
			return nil, err
		}
	}
	pol := policyOf(l.sb, in.Policy)
	argv := append([]string{path}, in.Argv[1:]...)
	p, err := piped.Start(l.sb, sandbox.Command{Argv: argv, Dir: in.Dir, Env: in.Env, Policy: &pol, Unconfined: in.Policy.None})
	if err != nil {
		return nil, err
	}
	return &process{Process: p, info: l.Describe(in.Policy)}, nil
}

// policyOf derives the plugin's policy from the session's.
func policyOf(sb *sandbox.Sandbox, p Policy) sandbox.Policy {
	pol := sb.Policy()
	pol.WritableRoots = p.Writable
	return pol.WithNetwork(p.Network).WithWritable()
}

// Describe implements Launcher.
func (l *SandboxLauncher) Describe(p Policy) protocol.PluginSandbox {
	info := protocol.PluginSandbox{Backend: "none", Enforcement: string(sandbox.EnforcementNone),
		Network: true, Writable: append([]string{}, p.Writable...), OptOut: p.None}
	if !p.None {
		i := l.sb.Info()
		info.Backend, info.Enforcement, info.Network = i.Backend, string(i.Enforcement), p.Network
		if i.Enforcement == sandbox.EnforcementNone {
			info.Network = true // nothing stops it
		}
	}
	return info
}

// visibleInBwrap refuses paths a bwrap-confined process cannot see: bwrap
// mounts a private tmpfs on /tmp, so below it only the writable roots
// exist. Without this the server fails with bwrap's bare "No such file or
// directory".
func visibleInBwrap(writable []string, paths ...string) error {
	for _, p := range paths {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if !strings.HasPrefix(p, "/tmp/") || slices.ContainsFunc(writable, func(w string) bool { return p == w || strings.HasPrefix(p, w+"/") }) {
			continue
		}
		return fmt.Errorf("under the bwrap sandbox /tmp is private to the plugin, so %s is not visible to it; install the server outside /tmp, or list its directory in the manifest's \"sandbox\": {\"writable\": [...]}", p)
	}
	return nil
}

// hostPaths are the arguments that name an existing absolute path on the
// host (a script the interpreter runs, a directory to serve): under bwrap
// they must be visible too, or the server fails with its own "not found".
// An argument the server creates itself (a log under its private /tmp)
// does not exist yet and is left alone.
func hostPaths(args []string) []string {
	var paths []string
	for _, a := range args {
		if filepath.IsAbs(a) {
			if _, err := os.Lstat(a); err == nil {
				paths = append(paths, a)
			}
		}
	}
	return paths
}

// process is a server started by the sandbox, with what it runs under.
type process struct {
	*piped.Process
	info protocol.PluginSandbox
}

func (p *process) Sandbox() protocol.PluginSandbox { return p.info }

var _ Launcher = (*SandboxLauncher)(nil)
var _ Process = (*process)(nil)
