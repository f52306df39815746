package runcode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"steerable.dev/sidecar/internal/sandbox"
)

// Options configure a Runtime; cmd fills them from the Config.
type Options struct {
	Sandbox   *sandbox.Sandbox
	Workspace string // the program's working directory
	// Confined: the host already confines the sidecar
	// (STEERABLE_SIDECAR_CONFINED=1); the child skips the layer-2 wrap and
	// inherits it.
	Confined bool
	Limits   Limits
	// Candidates are the python3 executables to try, in order
	// (Candidates of the sidecar's PATH).
	Candidates []string
	// OnNoPython, when set, runs once the search found no python3 ≥ 3.9
	// that runs in the sandbox, before Checked is closed: cmd withdraws
	// run_code there, so nobody who saw the search end sees it listed.
	OnNoPython func()
}

// Runtime runs the programs of one session: it finds the interpreter once
// (in the background, Start) and runs each program in a child of its own.
// It is safe for concurrent use.
type Runtime struct {
	opts   Options
	limits Limits

	startOnce sync.Once
	found     chan struct{} // closed when the fields below are set
	interp    Interpreter
	err       error
	passed    []Attempt

	rootOnce sync.Once
	root     string
	rootErr  error
}

// New returns the session's runtime; nothing starts until Start or the
// first Run.
func New(opts Options) *Runtime {
	return &Runtime{opts: opts, limits: opts.Limits.withDefaults(), found: make(chan struct{})}
}

// Limits are the runtime's limits, defaults applied.
func (r *Runtime) Limits() Limits { return r.limits }

// Program is one run_code call.
type Program struct {
	CallID string // names the child in the process table
	Code   string
	// OnOutput, when set, sees the program's stdout and stderr as they are
	// read (live tool.progress); it must not block or keep chunk.
	OnOutput func(stream string, chunk []byte)
}

// Outcome is how a program ended. Done is set when the program reported
// (its value or its exception); otherwise one of the others says why not.
type Outcome struct {
	Done  *Done
	Calls []CallRecord
	// Stopped is set when the sidecar ended the run: ErrBridge (the child
	// broke the protocol) or ErrCallLimit.
	Stopped   error
	TimedOut  bool // the run's timeout killed it
	Cancelled bool // ctx ended first (cancel, shutdown)
	ExitCode  int
	Signal    string
	Limit     string // the sandbox limit the child hit ("memory", "processes")
	// LimitCertain and LimitEvidence are sandbox.Result's: a limit an
	// rlimit enforces is inferred, and says from what.
	LimitCertain  bool
	LimitEvidence string
	Stdout        string
	Stderr        string
	Truncated     bool
	Sandbox       sandbox.Info // what the child ran under (network always off)
}

// doneGrace is how long a child may take to exit after its done message
// (the runner exits at once; a program that forged one does not).
const doneGrace = 2 * time.Second

// Run runs p, every nested call through d, under the session's sandbox
// with the network off and writable only its own temp dir. The error is
// non-nil only when the program could not start: a wrapped
// sandbox.ErrUnavailable (no backend confines it), ErrNoPython, or a
// failure to set the child up.
func (r *Runtime) Run(ctx context.Context, p Program, d Dispatch) (Outcome, error) {
	in, err := r.Interpreter()
	if err != nil {
		return Outcome{}, err
	}
	return r.run(ctx, in, p, d)
}

func (r *Runtime) run(ctx context.Context, in Interpreter, p Program, d Dispatch) (Outcome, error) {
	inherit, info, err := r.posture()
	if err != nil {
		return Outcome{}, err
	}
	dir, err := r.callDir()
	if err != nil {
		return Outcome{}, err
	}
	defer sandbox.RemoveTree(dir)
	ch, err := openChannels(in.runner)
	if err != nil {
		return Outcome{}, err
	}
	defer ch.close()
	// The nested calls end with the run — its timeout kills the child first,
	// so a call cut short cannot hand the program a result to return.
	callsCtx, endCalls := context.WithCancel(ctx)
	defer endCalls()
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	b := newBridge(callsCtx, ch.fromChild, ch.toChild, d, r.limits, stopRun)
	served := ch.serve(b, EncodeStart(p.Code, r.limits.MaxResultBytes))
	cmd := r.command(Argv(in.Path, p.CallID), dir, inherit)
	cmd.Stdin, cmd.ExtraFiles = ch.runner, []*os.File{ch.childOut, ch.childIn}
	res, err := r.opts.Sandbox.Run(runCtx, cmd,
		sandbox.RunOptions{Timeout: r.limits.Timeout, MaxOutput: r.limits.MaxOutputBytes, OnOutput: p.OnOutput})
	ch.closeChildEnds()
	endCalls()
	<-served
	if err != nil {
		return Outcome{}, err
	}
	done, calls, stopped := b.result()
	if done != nil && !done.OK {
		r.opts.Sandbox.InferLimit(&res, cmd, done.Error+"\n"+done.Traceback) // the program saw the limit as its exception
	}
	return Outcome{Done: done, Calls: calls, Stopped: stopped, TimedOut: res.TimedOut && done == nil,
		Cancelled: res.Cancelled && ctx.Err() != nil, ExitCode: res.ExitCode, Signal: res.Signal, Limit: res.Limit,
		LimitCertain: res.LimitCertain, LimitEvidence: res.LimitEvidence,
		Stdout: res.Stdout, Stderr: res.Stderr, Truncated: res.Truncated, Sandbox: info}, nil
}

// posture is how the child is confined: inherited (the host confines the
// sidecar) or by the session's backend, which must confine — run_code
// never runs unconfined (SPEC §4.6: no working backend is
// sandbox_unavailable).
func (r *Runtime) posture() (inherit bool, info sandbox.Info, err error) {
	sb := r.opts.Sandbox
	if r.opts.Confined {
		info = sandbox.Inherited
		info.EnvRemoved = sb.EnvRemoved(sandbox.EnvAllowlist)
		return true, info, nil
	}
	info = sb.Info()
	info.EnvRemoved = sb.EnvRemoved(sandbox.EnvAllowlist)
	switch {
	case sb.Unavailable():
		return false, info, fmt.Errorf("%w: no sandbox backend may run children here", sandbox.ErrUnavailable)
	case info.Enforcement == sandbox.EnforcementNone:
		return false, info, fmt.Errorf("%w: run_code runs only under a confining backend (bwrap, landlock, seatbelt), and this session has none (backend %s)",
			sandbox.ErrUnavailable, info.Backend)
	}
	info.Network = false
	return false, info, nil
}

// callDir creates the program's own temp dir below the session's run_code
// dir. The parent is the child's one writable root: a root per call would
// cost Landlock a new ruleset each time (an allowlist of / is enumerated),
// so programs of one session share the parent, each with its own dir.
func (r *Runtime) callDir() (string, error) {
	r.rootOnce.Do(func() {
		r.root = filepath.Join(r.opts.Sandbox.TempDir(), "run_code")
		if err := os.Mkdir(r.root, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			r.rootErr = fmt.Errorf("creating run_code's temp dir: %w", err)
		}
	})
	if r.rootErr != nil {
		return "", r.rootErr
	}
	dir, err := os.MkdirTemp(r.root, "call-")
	if err != nil {
		return "", fmt.Errorf("creating the program's temp dir: %w", err)
	}
	return dir, nil
}

// Argv is how the interpreter is started: isolated (-I: no user site, no
// PYTHON* variables, no script directory or cwd on sys.path, so a json.py
// in the workspace is never imported), without site (-S), writing no
// bytecode (-B), running the runner that Bootstrap reads from stdin. The
// two words after it name the child in the process table.
func Argv(exe, callID string) []string {
	return []string{exe, "-I", "-S", "-B", "-c", Bootstrap, "run_code", argID(callID)}
}

// Bootstrap runs the runner compiled by the same interpreter (marshal) from
// stdin. Compiling runner.py costs about 4 ms a start, unmarshalling it a
// fraction of one; the compiled form is made once per session (compileRunner).
const Bootstrap = "import marshal,sys;exec(marshal.loads(sys.stdin.buffer.read()))"

// command is argv confined as every run_code child is: the session's
// deny list and limits, writable only below the run_code dir, no network
// and no UNIX sockets, the allowlisted environment with dir as its temp.
func (r *Runtime) command(argv []string, dir string, inherit bool) sandbox.Command {
	p := r.opts.Sandbox.Policy().WithWritableOnly(r.root).WithNetwork(false)
	p.UnixSockets = false
	return sandbox.Command{Argv: argv, Dir: r.opts.Workspace, Env: r.env(dir), Policy: &p, Inherit: inherit}
}

// env is run_code's allowlisted environment (sandbox.EnvAllowlist) with
// the temp variables pointing at the program's own dir.
func (r *Runtime) env(dir string) []string {
	env := r.opts.Sandbox.Env(sandbox.EnvAllowlist)
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name != "TMPDIR" && name != "TEMP" && name != "TMP" {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+dir, "TEMP="+dir, "TMP="+dir)
}

// argID is the call id as it may appear in argv: printable, without NUL,
// bounded.
func argID(id string) string {
	const maxLen = 200
	b := []byte(id)
	if len(b) > maxLen {
		b = b[:maxLen]
	}
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:/-", c) >= 0
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "-"
	}
	return string(b)
}
