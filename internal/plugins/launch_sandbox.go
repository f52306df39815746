package plugins

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

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
	path, err := lookPath(in.Argv[0])
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
	return startProcess(l.Describe(in.Policy), func(stdin, stdout, stderr *os.File) (*sandbox.Process, error) {
		return l.sb.Start(sandbox.Command{Argv: argv, Dir: in.Dir, Env: in.Env, Policy: &pol, Unconfined: in.Policy.None,
			Stdin: stdin, Stdout: stdout, Stderr: stderr})
	})
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

// lookPath resolves a command without a slash on the sidecar's PATH, and
// checks that one with a slash exists.
func lookPath(cmd string) (string, error) {
	if filepath.IsAbs(cmd) {
		if _, err := os.Stat(cmd); err != nil {
			return "", fmt.Errorf("command %s: %w", cmd, err)
		}
		return cmd, nil
	}
	p, err := exec.LookPath(cmd)
	if err != nil {
		return "", fmt.Errorf("command %q is not on the sidecar's PATH: %w", cmd, err)
	}
	return filepath.Abs(p)
}

// process is a server started by the sandbox, with its three pipes.
type process struct {
	p      *sandbox.Process
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	info   protocol.PluginSandbox
}

// startProcess starts a child on three fresh pipes. They are the os.Pipe
// kind, so a blocked read or write honours Close and deadlines; the
// child's ends are handed over as they are and closed here once it runs.
func startProcess(info protocol.PluginSandbox, start func(stdin, stdout, stderr *os.File) (*sandbox.Process, error)) (*process, error) {
	var parent, child []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	for i := 0; i < 3; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(parent)
			closeAll(child)
			return nil, err
		}
		if i == 0 { // stdin: the child reads
			parent, child = append(parent, w), append(child, r)
		} else {
			parent, child = append(parent, r), append(child, w)
		}
	}
	p, err := start(child[0], child[1], child[2])
	closeAll(child)
	if err != nil {
		closeAll(parent)
		return nil, err
	}
	return &process{p: p, stdin: parent[0], stdout: parent[1], stderr: parent[2], info: info}, nil
}

func (p *process) Stdin() io.WriteCloser           { return p.stdin }
func (p *process) Stdout() io.ReadCloser           { return p.stdout }
func (p *process) Stderr() io.ReadCloser           { return p.stderr }
func (p *process) Done() <-chan struct{}           { return p.p.Done() }
func (p *process) Sandbox() protocol.PluginSandbox { return p.info }

// Exit implements Process.
func (p *process) Exit() string {
	e, err := p.p.Wait()
	s := fmt.Sprintf("exit status %d", e.Code)
	switch {
	case e.Signal != "":
		s = "killed by " + e.Signal
	case e.Code < 0:
		s = fmt.Sprintf("wait failed: %v", err)
	}
	if e.Limit != "" {
		s += fmt.Sprintf("; it hit the %s limit (STEERABLE_SANDBOX_MAX_PROCS, STEERABLE_SANDBOX_MAX_MEMORY_MB)", e.Limit)
	}
	return s
}

// Stop implements Process: SIGTERM, grace, then the whole tree is killed
// (grace 0: killed at once).
func (p *process) Stop(grace time.Duration) {
	if grace <= 0 {
		p.p.Kill()
		<-p.p.Done()
	} else {
		p.p.Stop(grace)
	}
	p.stdin.Close()
}

var _ Launcher = (*SandboxLauncher)(nil)
var _ Process = (*process)(nil)
