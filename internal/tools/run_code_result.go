package tools

import (
	"errors"
	"fmt"
	"strings"

	"steerable.dev/sidecar/internal/runcode"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// runCodeResult is the ToolResult of a finished program: data {description,
// value, calls, logs, _sandbox} on success; on failure the same minus value,
// plus the trimmed traceback and the program line when Python reported them.
func runCodeResult(description string, out runcode.Outcome, sbLim sandbox.Limits, lim runcode.Limits) protocol.ToolResult {
	info := out.Sandbox.Map()
	hit := limitHit{out.Limit, out.LimitCertain, out.LimitEvidence}
	hit.annotate(info)
	calls := out.Calls
	if calls == nil {
		calls = []runcode.CallRecord{}
	}
	data := map[string]any{"description": description, "calls": calls, "_sandbox": info,
		"logs": map[string]any{"stdout": out.Stdout, "stderr": out.Stderr, "truncated": out.Truncated}}
	var r protocol.ToolResult
	d := out.Done
	switch {
	case d != nil && d.OK:
		r = OK(fmt.Sprintf("the program returned after %d nested calls", len(calls)), nil)
		data["value"] = d.Value
	case d != nil:
		r = programError(d)
		data["errorKind"], data["traceback"] = d.Kind, d.Traceback
		if d.Line > 0 {
			data["line"] = d.Line
		}
	default:
		r = Followup("%s", unfinished(out, sbLim, lim))
	}
	if out.Limit != "" && d != nil && !d.OK { // the program saw the limit as an error (fork failed, MemoryError)
		r.Message = limitMessage("the program", hit, out.ExitCode, out.TimedOut, sbLim)
	}
	r.Data = data
	return r
}

// programError is the follow-up for a program that compiled badly, raised,
// or returned what cannot be sent.
func programError(d *runcode.Done) protocol.ToolResult {
	r := Followup("%s", d.Error)
	switch d.Kind {
	case runcode.KindSyntax:
		r.Message = "the code is not valid Python; fix it (line numbers are the code's own) and call run_code again"
	case runcode.KindResult:
		r.Message = "the program ran, but its return value cannot be returned; change what it returns"
	default:
		r.Message = "the program raised an exception; data.traceback shows the program's own lines (numbered from 1)"
	}
	return r
}

// unfinished says why a program ended without reporting.
func unfinished(out runcode.Outcome, sbLim sandbox.Limits, lim runcode.Limits) string {
	switch {
	case errors.Is(out.Stopped, runcode.ErrCallLimit):
		return fmt.Sprintf("run_code stopped the program: it kept calling tools after a call over the limit of %d nested calls "+
			"(STEERABLE_RUN_CODE_MAX_CALLS) was refused; do fewer calls per program, or split the work over several run_code calls", lim.MaxCalls)
	case out.Stopped != nil:
		return fmt.Sprintf("run_code stopped the program: %v; the program must not write to or close file descriptors 3 and 4, "+
			"which carry its tool calls", out.Stopped)
	case out.Limit != "" && !out.Cancelled:
		return limitMessage("the program", limitHit{out.Limit, out.LimitCertain, out.LimitEvidence}, out.ExitCode, out.TimedOut, sbLim)
	case out.TimedOut:
		return fmt.Sprintf("run_code timed out after %d ms (STEERABLE_RUN_CODE_TIMEOUT_MS, nested calls included); the program and "+
			"everything it started were killed, and what it printed is in data.logs; make it do less per call", lim.Timeout.Milliseconds())
	case out.Cancelled:
		return "run_code cancelled; the program and everything it started were killed"
	}
	msg := "run_code child exited without a result"
	if out.Signal != "" {
		msg += fmt.Sprintf(" (killed by %s)", out.Signal)
	} else {
		msg += fmt.Sprintf(" (exit code %d)", out.ExitCode)
	}
	if tail := stderrTail(out.Stderr); tail != "" {
		msg += ": " + tail
	}
	return msg
}

// stderrTail is the end of what the child wrote on stderr, for the error.
func stderrTail(s string) string {
	const max = 2000
	s = strings.TrimSpace(s)
	if len(s) > max {
		s = "…" + strings.ToValidUTF8(s[len(s)-max:], "")
	}
	return s
}
