package main

import (
	"context"
	"io"
	"os"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// openSandbox creates the session temp dir and starts selecting the sandbox
// backend with a real probe (SPEC §4.2). The probe runs in the background so
// the ready marker does not wait for it; bash calls and system.ping do.
func (a *app) openSandbox() error {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	sb, err := sandbox.Open(context.Background(), sandbox.Options{
		Choice: a.cfg.Sandbox, Network: a.cfg.SandboxNetwork, Require: a.cfg.SandboxRequire,
		Workspace: a.cfg.Workspace, TempParent: os.TempDir(), Environ: os.Environ(),
		Self: sandbox.Self{Path: exe, Argv0: "steerable-sidecar"},
	})
	if err != nil {
		return err
	}
	a.sandbox = sb
	go func() {
		check := sandboxCheck(sb)
		ev := a.log.Info()
		if check.Status != protocol.CheckOK {
			ev = a.log.Warn()
		}
		ev.Str("backend", sb.Info().Backend).Str("enforcement", string(sb.Info().Enforcement)).
			Str("tempDir", sb.TempDir()).Msg(check.Message)
	}()
	return nil
}

// sandboxCheck is checks.sandbox once the backend is selected: ok when a
// backend confines, warn when commands run unconfined or partly confined,
// error when they are refused (STEERABLE_SANDBOX_REQUIRE=1 and no working
// backend).
func sandboxCheck(sb *sandbox.Sandbox) protocol.Check {
	switch {
	case sb.Unavailable():
		return protocol.Check{Status: protocol.CheckError, Message: "sandbox_unavailable: bash refuses to run (STEERABLE_SANDBOX_REQUIRE=1); " + sb.Summary()}
	case sb.Info().Enforcement == sandbox.EnforcementNone:
		return protocol.Check{Status: protocol.CheckWarn, Message: "commands run unconfined; " + sb.Summary()}
	case sb.Info().Enforcement == sandbox.EnforcementPartial:
		return protocol.Check{Status: protocol.CheckWarn, Message: sb.Summary()}
	}
	return protocol.Check{Status: protocol.CheckOK, Message: sb.Summary()}
}

// sandboxExecCmd is the hidden helper subcommand (sandbox.HelperCommand).
func sandboxExecCmd(args []string, _ io.Reader, _, stderr io.Writer) int {
	return sandbox.ExecMain(args, stderr)
}
