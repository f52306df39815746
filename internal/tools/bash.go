package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// bashDefaultTimeoutMs is the timeout of a call without timeout_ms (SPEC
// §4.2); the ceiling is bashEnv.MaxTimeoutMs.
const bashDefaultTimeoutMs = 120000

type bashArgs struct {
	Command   string `json:"command"`
	TimeoutMs *int64 `json:"timeout_ms"`
	Cwd       string `json:"cwd"`
}

const bashSchema = `{"type":"object","properties":{
"command":{"type":"string","description":"The shell command to run with bash -c. stdin is /dev/null; background jobs are killed when the call ends."},
"timeout_ms":{"type":"integer","minimum":1,"description":"Kill the command after this many milliseconds (default 120000)."},
"cwd":{"type":"string","description":"Working directory, inside the workspace (default: the workspace root)."}},
"required":["command"],"additionalProperties":false}`

// bashEnv is what bash uses.
type bashEnv struct {
	Sandbox        *sandbox.Sandbox // with a shell (Builtins checks)
	Files          *files.Workspace // where cwd resolves
	Host           Host             // hears the live output
	MaxTimeoutMs   int
	MaxOutputBytes int
}

// newBash is the bash tool (SPEC §4.2): one shell command in the session's
// sandbox, its own process group, bounded output streamed live.
func newBash(d bashEnv) Tool {
	shell, _ := d.Sandbox.Shell() // Builtins registers bash only with a shell
	desc := protocol.ToolDescriptor{
		Name: "bash", Mode: protocol.ModeLocal, Parameters: json.RawMessage(bashSchema),
		Description: "Run a shell command in the workspace under the OS sandbox: writes only in the workspace and $TMPDIR, " +
			"no network unless enabled. Returns exitCode, stdout, stderr (head and tail kept when long), timedOut and truncated.",
	}
	return New(desc, func(ctx context.Context, call Call, a bashArgs) protocol.ToolResult {
		return runBash(ctx, d, shell, call, a)
	})
}

func runBash(ctx context.Context, d bashEnv, shell string, call Call, a bashArgs) protocol.ToolResult {
	sb := d.Sandbox
	if sb.Unavailable() {
		return bashUnavailable(sb)
	}
	timeout, refused := bashTimeout(a.TimeoutMs, d.MaxTimeoutMs)
	if refused != nil {
		return *refused
	}
	if strings.TrimSpace(a.Command) == "" {
		return Followup("command is empty; pass the shell command to run")
	}
	dir, err := bashDir(d.Files, a.Cwd)
	if err != nil {
		return Followup("%v", err)
	}
	live := startProgress(d.Host, call.ID)
	res, err := sb.Run(ctx, sandbox.Command{Argv: []string{shell, "-c", a.Command}, Dir: dir},
		sandbox.RunOptions{Timeout: timeout, MaxOutput: d.MaxOutputBytes, OnOutput: live.Write})
	live.Close()
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		return bashUnavailable(sb)
	case err != nil:
		return protocol.ToolResult{Success: false, Error: fmt.Sprintf("cannot start the command: %v", err)}
	}
	return bashResult(res, timeout, d.MaxTimeoutMs, sb)
}

// bashUnavailable is the terminal refusal when the sandbox runs nothing.
func bashUnavailable(sb *sandbox.Sandbox) protocol.ToolResult {
	res := Terminal("sandbox_unavailable")
	res.Message = "no usable sandbox backend, and commands never run unconfined here (a backend named in STEERABLE_SANDBOX, " +
		"or STEERABLE_SANDBOX_REQUIRE=1): " + sb.Summary()
	res.Data = map[string]any{"_sandbox": sb.Info().Map()}
	return res
}

// bashTimeout applies the default and the ceiling.
func bashTimeout(ms *int64, ceiling int) (time.Duration, *protocol.ToolResult) {
	if ms == nil {
		return time.Duration(min(bashDefaultTimeoutMs, ceiling)) * time.Millisecond, nil
	}
	if *ms > int64(ceiling) {
		r := Followup("timeout_ms %d is above the ceiling of %d ms (STEERABLE_BASH_MAX_TIMEOUT_MS); pass at most %d", *ms, ceiling, ceiling)
		return 0, &r
	}
	return time.Duration(*ms) * time.Millisecond, nil
}

// bashDir resolves cwd like every path the model passes (files.Resolve:
// symlinks resolved, confined to the workspace) and requires a directory.
func bashDir(ws *files.Workspace, cwd string) (string, error) {
	if cwd == "" {
		return ws.Dir(), nil
	}
	dir, err := ws.Resolve(cwd)
	if err != nil {
		return "", fmt.Errorf("cwd: %w", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("cwd %q is not an existing directory; pass a directory inside the workspace %s", cwd, ws.Dir())
	}
	return dir, nil
}

func bashResult(res sandbox.Result, timeout time.Duration, ceiling int, sb *sandbox.Sandbox) protocol.ToolResult {
	info := sb.Info().Map()
	hit := limitHit{res.Limit, res.LimitCertain, res.LimitEvidence}
	hit.annotate(info)
	data := map[string]any{
		"exitCode": res.ExitCode, "stdout": res.Stdout, "stderr": res.Stderr,
		"timedOut": res.TimedOut, "truncated": res.Truncated, "_sandbox": info,
	}
	var r protocol.ToolResult
	switch {
	case res.Limit != "" && !res.Cancelled:
		r = Followup("%s", limitMessage("command", hit, res.ExitCode, res.TimedOut, sb.Policy().Limits))
	case res.TimedOut:
		r = Followup("command timed out after %d ms; its process group was killed and the output captured so far is in data; "+
			"make it finish sooner or pass a larger timeout_ms (at most %d)", timeout.Milliseconds(), ceiling)
	case res.Cancelled:
		r = Followup("command cancelled; its process group was killed")
	case res.Signal != "":
		r = Followup("command was killed by %s (exit code %d); its output is in data.stdout and data.stderr", res.Signal, res.ExitCode)
	case res.ExitCode != 0:
		r = Followup("command exited with code %d; its output is in data.stdout and data.stderr", res.ExitCode)
	default:
		r = OK("exit code 0", nil)
	}
	r.Data = data
	return r
}

// limitHit is a per-call limit a child hit: certain when the kernel
// counted it (a cgroup), else inferred from what an rlimit left behind
// (evidence).
type limitHit struct {
	limit    string
	certain  bool
	evidence string
}

// annotate adds the hit to data._sandbox: limit, and limitCertain.
func (h limitHit) annotate(info map[string]any) {
	if h.limit != "" {
		info["limit"], info["limitCertain"] = h.limit, h.certain
	}
}

// limitMessage names the per-call limit a child hit and its variable (a
// limit hit usually explains a timeout that follows it); subject is what
// ran ("command", "the program"). An inferred hit says "probably", the
// rlimit that enforces the limit here and the evidence.
func limitMessage(subject string, h limitHit, exitCode int, timedOut bool, lim sandbox.Limits) string {
	var msg string
	switch {
	case h.limit == "memory" && h.certain:
		msg = fmt.Sprintf("%s hit the sandbox's memory limit of %d MB (STEERABLE_SANDBOX_MAX_MEMORY_MB) and was killed (exit code %d); "+
			"use less memory (smaller inputs, streaming) or ask the user to raise the limit", subject, lim.MaxMemoryBytes>>20, exitCode)
	case h.limit == "memory":
		msg = fmt.Sprintf("%s probably hit the sandbox's memory limit of %d MB (STEERABLE_SANDBOX_MAX_MEMORY_MB, enforced here as RLIMIT_AS, "+
			"which counts address space, not memory): %s (exit code %d); use less memory (smaller inputs, streaming) or ask the user to "+
			"raise the limit (a runtime that reserves address space up front, like Go, Node or the JVM, needs more than it uses)",
			subject, lim.MaxMemoryBytes>>20, h.evidence, exitCode)
	case h.certain:
		msg = fmt.Sprintf("%s hit the sandbox's limit of %d processes (STEERABLE_SANDBOX_MAX_PROCS): forks were refused (exit code %d); "+
			"start fewer processes at once or ask the user to raise the limit", subject, lim.MaxProcs, exitCode)
		if h.evidence != "" {
			msg = strings.Replace(msg, "forks were refused", "forks were refused, "+h.evidence, 1)
		}
	default:
		msg = fmt.Sprintf("%s probably hit the sandbox's limit of %d processes (STEERABLE_SANDBOX_MAX_PROCS, enforced here as RLIMIT_NPROC, "+
			"which keeps no count of refused forks): %s (exit code %d); start fewer processes at once or ask the user to raise the limit",
			subject, lim.MaxProcs, h.evidence, exitCode)
	}
	if timedOut {
		msg += "; it then ran into its timeout and was killed"
	}
	return msg
}
