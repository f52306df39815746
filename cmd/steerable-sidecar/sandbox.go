package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// openSandbox opens the sandbox in the session temp dir boot is creating
// (buildTools waits for it), and prepares selecting the sandbox backend
// with a real probe (SPEC §4.2). The probe runs in the background once the
// sidecar is ready, so the ready marker does not wait for it; bash calls
// and system.ping do.
func (a *app) openSandbox(tmp *sessionDir) error {
	opts := a.sandboxOptions()
	opts.SessionDir = tmp.wait
	sb, err := sandbox.Open(context.Background(), opts)
	if err != nil {
		return err
	}
	tmp.adopted = true // Close removes it
	a.sandbox, a.sessionDir = sb, tmp
	if names := sb.Scrubbed(); len(names) > 0 {
		a.log.Debug().Strs("names", names).Msg("variables scrubbed from the environment of sandboxed commands (names only)")
	}
	return nil
}

// sessionDir is the sandbox's session temp dir, created in the background
// from the start of boot: a mkdir in a crowded system temp dir (ext4 with a
// thousand entries) takes 0.3 to 0.7 ms here, which then overlaps reading
// the configuration and building the tools instead of adding to start-up.
type sessionDir struct {
	done    chan struct{}
	dir     string
	err     error
	adopted bool // the sandbox owns it (and removes it at Close)
}

func createSessionDir(parent string) *sessionDir {
	d := &sessionDir{done: make(chan struct{})}
	go func() {
		defer close(d.done)
		d.dir, d.err = sandbox.NewSessionDir(parent)
	}()
	return d
}

// wait returns the dir, or why it could not be created.
func (d *sessionDir) wait() (string, error) {
	<-d.done
	return d.dir, d.err
}

// discard removes the dir when boot failed before the sandbox adopted it.
func (d *sessionDir) discard() {
	if dir, err := d.wait(); err == nil && !d.adopted {
		sandbox.RemoveTree(dir)
	}
}

// probeDelay is how long after the ready marker serve lets the host run
// before the probe starts on its own. The probe forks (bwrap, python3 for
// run_code) and scans the temp dir, which takes both cores for a moment:
// started with the marker, it kept the host from reading it, 0.3 to 1.5 ms
// of spawn → ready on this shared 2-core machine. Nothing waits for the
// delay: bash, run_code and system.ping start the probe when they need it.
const probeDelay = 5 * time.Millisecond

// probeAfterReady is serve's AfterReady: probeSandbox, probeDelay after
// the marker, unless the sidecar is closing by then.
func (a *app) probeAfterReady() {
	time.AfterFunc(probeDelay, func() {
		select {
		case <-a.closing:
		default:
			a.probeSandbox()
		}
	})
}

// probeSandbox starts the backend selection, deferred by openSandbox so
// that serve can start it after the ready marker (its forks would delay
// ready), and logs its outcome when it is known.
func (a *app) probeSandbox() {
	sb := a.sandbox
	sb.StartProbe()
	if a.runCode != nil {
		a.runCode.Start() // finding python3 runs it in the sandbox
	}
	go func() {
		for _, note := range append(sb.ExposedBinaries(), sb.UntrustedPrograms()...) {
			a.log.Warn().Msg(note)
		}
		check := sandboxCheck(sb)
		ev := a.log.Info()
		if check.Status != protocol.CheckOK {
			ev = a.log.Warn()
		}
		ev.Str("backend", sb.Info().Backend).Str("enforcement", string(sb.Info().Enforcement)).
			Str("lifetime", string(sb.Lifetime())).Str("tempDir", sb.TempDir()).Msg(check.Message)
	}()
}

// sandboxOptions turns the configuration into sandbox.Options (config
// has expanded and checked the deny and allow lists).
func (a *app) sandboxOptions() sandbox.Options {
	c := a.cfg
	return sandbox.Options{
		Choice: c.Sandbox, Network: c.SandboxNetwork, UnixSockets: c.SandboxUnixSockets, Require: c.SandboxRequire,
		Workspace: string(c.Workspace), TempParent: os.TempDir(), Environ: os.Environ(), DeferProbe: true,
		Env:  sandbox.EnvRules{Core: c.SandboxEnv == "core", Pass: c.SandboxEnvPass},
		Deny: denyOptions(c),
		Limits: sandbox.Limits{MaxProcs: c.SandboxMaxProcs, MaxMemoryBytes: int64(c.SandboxMaxMemoryMB) << 20,
			TmpBytes: int64(c.SandboxTmpMB) << 20},
		BwrapPath: string(c.BwrapPath), BashPath: string(c.BashPath), Self: sandbox.OpenSelf("steerable-sidecar"),
		Binaries: selfPaths(),
	}
}

// denyOptions are the inputs of the deny list: both homes ($HOME, and the
// passwd entry's, looked up when the list is resolved), the extra and the
// lifted entries (config has expanded and checked them).
func denyOptions(c config.Config) sandbox.DenyOptions {
	return sandbox.DenyOptions{Home: os.Getenv("HOME"), LookupUserHome: true, Extra: c.SandboxDenyRead,
		Allow: c.SandboxAllowRead, Root: os.Geteuid() == 0}
}

// selfPaths are where the host may start this binary from again: the
// running executable and the path it invoked (argv[0], made absolute, or
// found on PATH as the host's exec found it).
func selfPaths() []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		out = append(out, exe)
	}
	invoked := os.Args[0]
	if !strings.ContainsRune(invoked, filepath.Separator) {
		invoked, _ = exec.LookPath(invoked)
	}
	if abs, err := filepath.Abs(invoked); err == nil && invoked != "" {
		out = append(out, abs)
	}
	return out
}

// sandboxCheck is checks.sandbox once the backend is selected: ok when a
// backend confines fully, warn when commands run unconfined or partly
// confined, when a configured limit is not enforced here or the binary
// lies in a writable root, error when they are refused (the named backend
// does not work, or STEERABLE_SANDBOX_REQUIRE=1 and no backend does).
func sandboxCheck(sb *sandbox.Sandbox) protocol.Check {
	switch {
	case sb.Unavailable():
		return protocol.Check{Status: protocol.CheckError, Message: "sandbox_unavailable: bash refuses to run; " + sb.Summary()}
	case sb.Info().Enforcement == sandbox.EnforcementNone:
		return protocol.Check{Status: protocol.CheckWarn, Message: "commands run unconfined; " + sb.Summary()}
	case sb.Info().Enforcement == sandbox.EnforcementPartial, len(sb.ExposedBinaries()) > 0, len(sb.Unenforced()) > 0:
		return protocol.Check{Status: protocol.CheckWarn, Message: sb.Summary()}
	}
	return protocol.Check{Status: protocol.CheckOK, Message: sb.Summary()}
}

// sandboxExecCmd is the hidden helper subcommand (sandbox.HelperCommand).
func sandboxExecCmd(args []string, _ io.Reader, _, stderr io.Writer) int {
	return sandbox.ExecMain(args, stderr)
}
