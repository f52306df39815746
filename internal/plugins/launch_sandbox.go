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
	"syscall"
	"time"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// SandboxLauncher starts plugin servers under the session's layer-2 sandbox
// (the backend bash runs under), each with its own policy.
//
// The sandbox API of this build confines a command with the session's
// policy only, so the launcher wraps the command itself with a backend of
// the kind the session selected (its probe has already proved that kind
// works here) and the plugin's policy, then starts it with sandbox.Start
// (own session and process group, PR_SET_PDEATHSIG=SIGKILL).
type SandboxLauncher struct {
	Sandbox *sandbox.Sandbox
	Self    sandbox.Self // how the landlock backend re-executes this binary
}

// ErrSandboxUnavailable means STEERABLE_SANDBOX_REQUIRE=1 and no backend
// works: no plugin starts, not even one that opted out.
var ErrSandboxUnavailable = errors.New("sandbox_unavailable: no sandbox backend works here and STEERABLE_SANDBOX_REQUIRE=1 forbids starting plugins unconfined")

// Launch implements Launcher.
func (l SandboxLauncher) Launch(in Launch) (Process, error) {
	if l.Sandbox.Unavailable() {
		return nil, ErrSandboxUnavailable
	}
	path, err := lookPath(in.Argv[0])
	if err != nil {
		return nil, err
	}
	backend := l.backend(in.Policy)
	if backend.Name() == "bwrap" {
		if err := visibleInBwrap(in.Policy.Writable, path, in.Dir); err != nil {
			return nil, err
		}
	}
	w, err := backend.Wrap(sandbox.Cmd{Path: path, Args: in.Argv, Dir: in.Dir, Env: in.Env}, policyOf(in.Policy))
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", backend.Name(), err)
	}
	return startProcess(&exec.Cmd{Path: w.Path, Args: w.Args, Dir: w.Dir, Env: w.Env}, l.Describe(in.Policy))
}

// Describe implements Launcher.
func (l SandboxLauncher) Describe(p Policy) protocol.PluginSandbox {
	backend := l.backend(p)
	info := protocol.PluginSandbox{Backend: backend.Name(), Enforcement: string(backend.Enforcement(policyOf(p))),
		Network: p.Network, Writable: append([]string{}, p.Writable...), OptOut: p.None}
	if info.Enforcement == string(sandbox.EnforcementNone) {
		info.Network = true // nothing stops it
	}
	return info
}

func policyOf(p Policy) sandbox.Policy {
	return sandbox.Policy{WritableRoots: p.Writable, Network: p.Network}
}

// backend is the session's kind of backend, or none for an opt-out.
func (l SandboxLauncher) backend(p Policy) sandbox.Backend {
	if p.None {
		return sandbox.None{}
	}
	switch l.Sandbox.Info().Backend {
	case "bwrap":
		return sandbox.NewBwrap()
	case "landlock":
		return sandbox.NewLandlock(l.Self)
	case "seatbelt":
		return sandbox.NewSeatbelt()
	}
	return sandbox.None{}
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

// process is a server started with sandbox.Start, with its three pipes.
type process struct {
	p      *sandbox.Process
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	info   protocol.PluginSandbox
}

// startProcess starts cmd on three fresh pipes. The pipes are the
// os.Pipe kind, so a blocked read or write honours Close and deadlines.
func startProcess(cmd *exec.Cmd, info protocol.PluginSandbox) (*process, error) {
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
	cmd.Stdin, cmd.Stdout, cmd.Stderr = child[0], child[1], child[2]
	p, err := sandbox.Start(cmd)
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
	state, err := p.p.Wait()
	switch {
	case state == nil:
		return fmt.Sprintf("wait failed: %v", err)
	case !state.Exited():
		if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by " + signalName(ws.Signal())
		}
	}
	return state.String()
}

// Stop implements Process: the group is SIGTERMed, then SIGKILLed, and
// whatever the leader left in its group dies too, as do descendants that
// left the group (found while the leader lives).
func (p *process) Stop(grace time.Duration) {
	var below []proc
	select {
	case <-p.p.Done():
	default:
		below = descendants(p.p.Pid())
	}
	if grace <= 0 {
		p.p.Kill()
		<-p.p.Done()
	} else {
		p.p.Stop(grace)
	}
	p.p.Kill() // stragglers of the group
	killAll(below)
	p.stdin.Close()
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	}
	return s.String()
}

var _ Launcher = SandboxLauncher{}
var _ Process = (*process)(nil)
