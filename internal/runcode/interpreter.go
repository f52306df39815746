package runcode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// Interpreter is the python3 a session's programs run with.
type Interpreter struct {
	Path    string // the real executable (sys.executable), started directly
	Version string // e.g. "3.11.2"
	Found   string // the candidate it was found through (a symlink, a pyenv shim)
	runner  []byte // runner.py compiled by it (marshal), fed to Bootstrap
}

// Attempt is a candidate that was passed over, and why.
type Attempt struct {
	Candidate string
	Err       error
}

// ErrNoPython means no python3 ≥ 3.9 runs in the sandbox here.
var ErrNoPython = errors.New("no python3 ≥ 3.9 runs in the sandbox")

// MinVersion is the oldest Python the runner supports.
var MinVersion = [2]int{3, 9}

// Candidates lists the python3 executables in pathList (a PATH value), in
// order. It only looks at the file system; nothing is run.
func Candidates(pathList string) []string {
	var out []string
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) || seen[dir] {
			continue // a relative PATH entry depends on the cwd: never
		}
		seen[dir] = true
		p := filepath.Join(dir, "python3")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			out = append(out, p)
		}
	}
	return out
}

// Start begins finding the interpreter in the background (it waits for
// the sandbox's selection and runs each candidate confined). Idempotent.
func (r *Runtime) Start() {
	r.startOnce.Do(func() { go r.discover() })
}

// Checked is closed once the interpreter is found or known to be missing.
func (r *Runtime) Checked() <-chan struct{} { return r.found }

// Interpreter starts the search if needed and waits for it. The error is
// ErrNoPython (wrapped with each candidate's reason) or a wrapped
// sandbox.ErrUnavailable.
func (r *Runtime) Interpreter() (Interpreter, error) {
	r.Start()
	<-r.found
	return r.interp, r.err
}

// probeTimeout bounds each candidate's runs (a pyenv shim takes a few
// hundred milliseconds).
const probeTimeout = 30 * time.Second

// discover takes the first candidate that runs confined, is new enough and
// runs the runner: every candidate runs inside the sandbox, since PATH may
// name the workspace.
func (r *Runtime) discover() {
	defer close(r.found)
	if _, _, err := r.posture(); err != nil {
		r.err = err
		return
	}
	tried := map[string]bool{}
	for _, c := range r.opts.Candidates {
		in, err := r.identify(c)
		if err == nil && tried[in.Path] {
			continue // another name of one already tried
		}
		if err == nil {
			tried[in.Path] = true
			in.runner, err = r.compileRunner(in.Path)
		}
		if err == nil {
			err = r.selfTest(in)
		}
		if err == nil {
			r.interp = in
			return
		}
		r.passed = append(r.passed, Attempt{Candidate: c, Err: err})
	}
	r.err = fmt.Errorf("%w: %s", ErrNoPython, attemptsText(r.passed, "no python3 on PATH"))
	if r.opts.OnNoPython != nil {
		r.opts.OnNoPython()
	}
}

const identifyScript = `import sys, json; print(json.dumps({"executable": sys.executable, "version": list(sys.version_info[:3])}))`

// identify runs candidate confined and asks it for its real executable
// and version.
func (r *Runtime) identify(candidate string) (Interpreter, error) {
	inherit, _, _ := r.posture()
	dir, err := r.callDir()
	if err != nil {
		return Interpreter{}, err
	}
	defer sandbox.RemoveTree(dir)
	cmd := r.command([]string{candidate, "-I", "-S", "-B", "-c", identifyScript}, dir, inherit)
	res, err := r.opts.Sandbox.Run(context.Background(), cmd, sandbox.RunOptions{Timeout: probeTimeout, MaxOutput: 4096})
	switch {
	case err != nil:
		return Interpreter{}, err
	case res.ExitCode != 0:
		return Interpreter{}, fmt.Errorf("exit code %d in the sandbox: %s", res.ExitCode, lastLine(res.Stderr))
	}
	var got struct {
		Executable string `json:"executable"`
		Version    []int  `json:"version"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil || len(got.Version) != 3 {
		return Interpreter{}, fmt.Errorf("does not report its version: %q", lastLine(res.Stdout))
	}
	v := fmt.Sprintf("%d.%d.%d", got.Version[0], got.Version[1], got.Version[2])
	if got.Version[0] < MinVersion[0] || got.Version[0] == MinVersion[0] && got.Version[1] < MinVersion[1] {
		//lint:ignore ST1005 "Python" is a proper noun; the message follows the candidate's path ("…/python3: Python 3.8 is older than 3.9")
		return Interpreter{}, fmt.Errorf("Python %s is older than %d.%d", v, MinVersion[0], MinVersion[1])
	}
	exe := got.Executable
	if !filepath.IsAbs(exe) {
		exe = candidate
	}
	return Interpreter{Path: exe, Version: v, Found: candidate}, nil
}

const compileScript = `import marshal, sys; sys.stdout.buffer.write(marshal.dumps(compile(sys.stdin.read(), "<runner>", "exec")))`

// compileRunner has exe compile runner.py (confined, like every run) and
// returns the marshalled code object.
func (r *Runtime) compileRunner(exe string) ([]byte, error) {
	inherit, _, _ := r.posture()
	dir, err := r.callDir()
	if err != nil {
		return nil, err
	}
	defer sandbox.RemoveTree(dir)
	cmd := r.command([]string{exe, "-I", "-S", "-B", "-c", compileScript}, dir, inherit)
	cmd.Stdin = bytes.NewReader(runnerSource)
	res, err := r.opts.Sandbox.Run(context.Background(), cmd, sandbox.RunOptions{Timeout: probeTimeout, MaxOutput: maxRunnerCode})
	switch {
	case err != nil:
		return nil, err
	case res.ExitCode != 0:
		return nil, fmt.Errorf("cannot compile the runner (exit code %d): %s", res.ExitCode, lastLine(res.Stderr))
	case res.Truncated || res.Stdout == "":
		return nil, fmt.Errorf("compiling the runner gave %d bytes", len(res.Stdout))
	}
	return []byte(res.Stdout), nil
}

// maxRunnerCode bounds the compiled runner (about 30 KB).
const maxRunnerCode = 1 << 20

// selfTest runs a real program with the runner through the bridge.
func (r *Runtime) selfTest(in Interpreter) error {
	refuse := func(context.Context, int, string, json.RawMessage) protocol.ToolResult {
		return protocol.ToolResult{Error: "no tools in the self-test"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	out, err := r.run(ctx, in, Program{CallID: "self-test", Code: "return 6 * 7"}, refuse)
	switch {
	case err != nil:
		return err
	case out.Done == nil:
		return fmt.Errorf("the runner did not report (exit code %d): %s", out.ExitCode, lastLine(out.Stderr))
	case !out.Done.OK || string(out.Done.Value) != "42":
		return fmt.Errorf("the runner's self-test failed: %s", out.Done.Error)
	}
	return nil
}

// Summary describes the interpreter for checks.run_code (after Checked).
func (r *Runtime) Summary() string {
	<-r.found
	if r.err != nil {
		return r.err.Error()
	}
	in := r.interp
	s := "python3 " + in.Version + " at " + in.Path
	if in.Found != in.Path {
		s += " (found as " + in.Found + ")"
	}
	_, info, _ := r.posture()
	s += ", under " + info.Backend + " with the network off; " + r.limits.String()
	if len(r.passed) > 0 {
		s += "; passed over: " + attemptsText(r.passed, "")
	}
	return s
}

func attemptsText(as []Attempt, none string) string {
	if len(as) == 0 {
		return none
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.Candidate + ": " + a.Err.Error()
	}
	return strings.Join(parts, "; ")
}

// lastLine is the last non-empty line of s, bounded, for messages.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 300 {
		l = l[:300] + "…"
	}
	if l == "" {
		return "(no output)"
	}
	return l
}
