// Package scripttest is the host's side of a live sidecar in a testscript
// script: one harness for the end-to-end scripts that run the native
// binary (cmd/steerable-sidecar) and for the scripts that run the
// windows/amd64 build under Wine (internal/winetest), which otherwise each
// kept a copy of it.
//
// A Session starts the sidecar on three pipes, reads its stdout as JSON-RPC
// frames and its stderr as text, writes lines to its stdin, and waits,
// within a bound, for the frame a script expects. Commands are the script
// commands both harnesses share:
//
//	send 'JSON'               write one raw line to its stdin
//	rpc ID METHOD ['PARAMS']  send a request and print its reply (match it with `stdout`)
//	await ID                  print the reply to an earlier `send` with that id
//	notification METHOD       print the params of the next such notification
//	reverse METHOD 'RESULT'   wait for a sidecar → host request, print its params, answer RESULT
//
// Each harness keeps what is its own: how the sidecar is found, started
// and given its environment, and the commands only its scripts use. It is
// imported only by tests.
package scripttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Frame is one JSON-RPC message the sidecar wrote, by member.
type Frame = map[string]json.RawMessage

// Session is the live sidecar of a script: the last one Start started,
// and what every sidecar of the script wrote.
type Session struct {
	Cmd   *exec.Cmd      // the last sidecar started
	Stdin io.WriteCloser // its stdin

	// Timeout bounds every wait. It only ends a script that is failing
	// anyway, so it is sized for a loaded machine.
	Timeout time.Duration
	// Linger is how long a sidecar's stdout and stderr may stay open after
	// it exited: they end at once unless a process it started holds them,
	// and then the sidecar is stuck. New sets it to Timeout.
	Linger time.Duration

	run *run // the last sidecar started

	mu      sync.Mutex
	changed *sync.Cond // broadcast on every frame, stderr line and exit
	frames  []Frame    // stdout frames not yet consumed
	bad     []string   // stdout lines that were not JSON-RPC frames
	stderr  strings.Builder
}

// run is one started sidecar. err and stuck are set before exited is
// closed, once the process is reaped and its output read (or Linger
// passed).
type run struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // cmd.Wait's
	stuck  bool  // its output stayed open after it exited
}

// New is a session whose waits are bounded by timeout.
func New(timeout time.Duration) *Session {
	s := &Session{Timeout: timeout, Linger: timeout}
	s.changed = sync.NewCond(&s.mu)
	return s
}

// Stdio says what the host does with a sidecar's output besides reading
// its frames.
type Stdio struct {
	// StdoutGate, when non-nil, holds off reading stdout until it is
	// closed (a host that stopped reading).
	StdoutGate <-chan struct{}
	// Stderr, when non-nil, takes the read end of the sidecar's stderr
	// (a host that never reads it, or closed it); nil: the session reads
	// it.
	Stderr func(*os.File)
}

// Start starts cmd with its stdio on three new pipes and returns where its
// stderr starts in Stderr (a script may start several sidecars in turn).
// The pipes are close-on-exec, so no other sidecar of the test process
// inherits them, and the child's ends are closed once it has them. The
// sidecar is killed when the script ends.
func (s *Session) Start(ts *testscript.TestScript, cmd *exec.Cmd, o Stdio) (from int) {
	p := newPipes(ts)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.inR, p.outW, p.errW
	from = len(s.Stderr())
	err := cmd.Start()
	p.closeChild()
	if err != nil {
		p.closeParent()
		ts.Fatalf("starting the sidecar: %v", err)
	}
	r := &run{cmd: cmd, exited: make(chan struct{})}
	s.Cmd, s.Stdin, s.run = cmd, p.inW, r
	var readers sync.WaitGroup
	readers.Go(func() { s.readFrames(p.outR, o.StdoutGate) })
	if o.Stderr != nil {
		o.Stderr(p.errR)
		p.errR = nil // the host's now
	} else {
		readers.Go(func() { s.readStderr(p.errR) })
	}
	go s.reap(r, &readers, s.Linger)
	ts.Defer(func() {
		cmd.Process.Kill()
		<-r.exited
		p.closeParent()
	})
	return from
}

// pipes are a sidecar's stdin, stdout and stderr: the child's ends (inR,
// outW, errW) and the parent's.
type pipes struct{ inR, inW, outR, outW, errR, errW *os.File }

func newPipes(ts *testscript.TestScript) *pipes {
	var p pipes
	var err error
	p.inR, p.inW, err = os.Pipe()
	ts.Check(err)
	p.outR, p.outW, err = os.Pipe()
	ts.Check(err)
	p.errR, p.errW, err = os.Pipe()
	ts.Check(err)
	return &p
}

func (p *pipes) closeChild() { p.inR.Close(); p.outW.Close(); p.errW.Close() }

// closeParent closes the parent's ends; errR is nil once the host took it.
func (p *pipes) closeParent() {
	p.inW.Close()
	p.outR.Close()
	if p.errR != nil {
		p.errR.Close()
	}
}

// reap waits for the process, then for its output to end, for at most
// linger.
func (s *Session) reap(r *run, readers *sync.WaitGroup, linger time.Duration) {
	r.err = r.cmd.Wait()
	read := make(chan struct{})
	go func() { readers.Wait(); close(read) }()
	select {
	case <-read:
	case <-time.After(linger):
		r.stuck = true
	}
	s.wake()
	close(r.exited)
}

func (s *Session) wake() {
	s.mu.Lock()
	s.changed.Broadcast()
	s.mu.Unlock()
}

// readFrames reads stdout, once gate (if any) is closed, one frame a line.
func (s *Session) readFrames(r io.Reader, gate <-chan struct{}) {
	if gate != nil {
		<-gate
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var f Frame
		s.mu.Lock()
		if json.Unmarshal(sc.Bytes(), &f) != nil || string(f["jsonrpc"]) != `"2.0"` {
			s.bad = append(s.bad, sc.Text())
		} else {
			s.frames = append(s.frames, f)
		}
		s.changed.Broadcast()
		s.mu.Unlock()
	}
}

func (s *Session) readStderr(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		s.mu.Lock()
		s.stderr.WriteString(sc.Text() + "\n")
		s.changed.Broadcast()
		s.mu.Unlock()
	}
}

// Stderr is what the script's sidecars wrote to stderr so far.
func (s *Session) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// AwaitStderr waits up to within until ok holds of Stderr, and reports
// whether it did.
func (s *Session) AwaitStderr(within time.Duration, ok func(stderr string) bool) bool {
	return s.await(within, func() bool { return ok(s.stderr.String()) })
}

// Next removes and returns the first frame match accepts, waiting for it
// up to Timeout; the script fails when it does not come.
func (s *Session) Next(ts *testscript.TestScript, match func(Frame) bool) Frame {
	f := s.NextWithin(ts, s.Timeout, match)
	if f == nil {
		ts.Fatalf("expected frame did not arrive within %v; %s", s.Timeout, s.unconsumed())
	}
	return f
}

// NextWithin is Next with a bound of its own, nil when the frame did not
// come in time. The script fails at once when the sidecar exits first.
func (s *Session) NextWithin(ts *testscript.TestScript, within time.Duration, match func(Frame) bool) Frame {
	var f Frame
	exited := false
	s.await(within, func() bool {
		f = s.take(match)
		exited = f == nil && s.exited()
		return f != nil || exited
	})
	if exited {
		ts.Fatalf("sidecar exited (%s) before the expected frame arrived; stderr:\n%s", s.run.state(), s.Stderr())
	}
	return f
}

// Find returns the first frame match accepts without consuming it; nil
// when none has come.
func (s *Session) Find(match func(Frame) bool) Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.frames {
		if match(f) {
			return f
		}
	}
	return nil
}

// take removes and returns the first frame match accepts; s.mu is held.
func (s *Session) take(match func(Frame) bool) Frame {
	for i, f := range s.frames {
		if match(f) {
			s.frames = append(s.frames[:i:i], s.frames[i+1:]...)
			return f
		}
	}
	return nil
}

// await waits until done, called with s.mu held, holds or within passes,
// and reports whether done held.
func (s *Session) await(within time.Duration, done func() bool) bool {
	deadline := time.Now().Add(within)
	timer := time.AfterFunc(within, s.wake)
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !done() {
		if !time.Now().Before(deadline) {
			return false
		}
		s.changed.Wait()
	}
	return true
}

// exited reports whether the last sidecar started has exited.
func (s *Session) exited() bool {
	if s.run == nil {
		return false
	}
	select {
	case <-s.run.exited:
		return true
	default:
		return false
	}
}

// state says how an exited sidecar ended.
func (r *run) state() string {
	st := fmt.Sprint(r.err)
	if r.cmd.ProcessState != nil {
		st = r.cmd.ProcessState.String()
	}
	if r.stuck {
		st += ", its output still open"
	}
	return st
}

func (s *Session) unconsumed() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("unconsumed frames (%d): %.2000s", len(s.frames), fmt.Sprint(s.frames))
}

// Write writes line and a newline to the sidecar's stdin.
func (s *Session) Write(ts *testscript.TestScript, line string) {
	if s.Stdin == nil {
		ts.Fatalf("no sidecar started")
	}
	_, err := io.WriteString(s.Stdin, line+"\n")
	ts.Check(err)
}

// Wait waits up to within for the sidecar to exit and prints "exit N".
// The script fails when the code is not 0 (0 with neg), when the
// sidecar's output outlived it, or when its stdout carried anything but
// frames.
func (s *Session) Wait(ts *testscript.TestScript, neg bool, within time.Duration) {
	r := s.run
	if r == nil {
		ts.Fatalf("no sidecar started")
	}
	select {
	case <-r.exited:
	case <-time.After(within):
		ts.Fatalf("sidecar did not exit within %v", within)
	}
	if r.stuck {
		ts.Fatalf("the sidecar exited but its output stayed open for %v: a process it started (or Wine's) holds the pipe", s.Linger)
	}
	code := r.cmd.ProcessState.ExitCode()
	fmt.Fprintf(ts.Stdout(), "exit %d\n", code)
	if (code != 0) != neg {
		ts.Fatalf("sidecar exited %d", code)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bad) > 0 {
		ts.Fatalf("stdout carried non-frame lines: %q", s.bad)
	}
}
