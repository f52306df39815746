package main

import (
	"errors"
	"os"
	"time"

	"steerable.dev/sidecar/internal/runcode"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// wireRunCode gives the tools run_code's runtime when STEERABLE_RUN_CODE=1
// and some python3 exists (SPEC §4.6). Whether one ≥ 3.9 runs inside the
// sandbox is found in the background, after the ready marker like the
// sandbox probe it needs (probeSandbox, watchRunCode): running it takes
// from milliseconds to, through a pyenv shim, hundreds of them, and its
// forks must not delay ready.
func (a *app) wireRunCode(deps *tools.Deps) {
	if !a.cfg.RunCode {
		return
	}
	candidates := runcode.Candidates(os.Getenv("PATH"))
	if len(candidates) == 0 {
		a.checks["run_code"] = protocol.Check{Status: protocol.CheckWarn,
			Message: "STEERABLE_RUN_CODE=1 but no python3 is on PATH; run_code is not registered"}
		return
	}
	a.runCode = runcode.New(runcode.Options{Sandbox: a.sandbox, Workspace: string(a.cfg.Workspace), Confined: a.cfg.SidecarConfined,
		Candidates: candidates, OnNoPython: func() { a.registry.Unregister("run_code") }, Limits: runcode.Limits{
			MaxCalls: a.cfg.RunCodeMaxCalls, Timeout: time.Duration(a.cfg.RunCodeTimeoutMs) * time.Millisecond,
			MaxResultBytes: int(a.cfg.RunCodeMaxResult), MaxOutputBytes: int(a.cfg.BashMaxOutputBytes), MaxFrameBytes: int(a.cfg.MaxFrameBytes),
		}})
	deps.RunCode = a.runCode
}

// watchRunCode waits for the interpreter search (started with the sandbox
// probe once the ready marker is out, or by the first run_code call) and
// logs its outcome. When no python3 ≥ 3.9 runs in the sandbox, run_code
// has been withdrawn from the registry by then (OnNoPython, before the
// search is seen as done: it could never run) and checks.run_code says
// why. A sandbox that cannot confine it leaves it registered: calls
// answer sandbox_unavailable, like bash.
func (a *app) watchRunCode() {
	if a.runCode == nil {
		return
	}
	go func() {
		<-a.runCode.Checked()
		_, err := a.runCode.Interpreter()
		switch {
		case errors.Is(err, runcode.ErrNoPython):
			a.log.Warn().Str("reason", err.Error()).Msg("run_code withdrawn: no usable python3")
		case err != nil:
			a.log.Warn().Err(err).Msg("run_code refuses to run")
		default:
			a.log.Info().Msg(a.runCode.Summary())
		}
	}()
}

// runCodeCheck is checks.run_code once the interpreter search is done.
func runCodeCheck(rt *runcode.Runtime) protocol.Check {
	select {
	case <-rt.Checked():
	default:
		return protocol.Check{Status: protocol.CheckWarn, Message: "finding python3 for run_code (it starts once the sidecar is ready)"}
	}
	_, err := rt.Interpreter()
	switch {
	case errors.Is(err, runcode.ErrNoPython):
		return protocol.Check{Status: protocol.CheckError, Message: "run_code is not registered: " + err.Error()}
	case err != nil:
		return protocol.Check{Status: protocol.CheckError, Message: "run_code refuses to run (sandbox_unavailable): " + err.Error()}
	}
	return protocol.Check{Status: protocol.CheckOK, Message: rt.Summary()}
}
