package launch

import (
	"context"
	"io"
	"os"
	"sync"
	"time"
)

// RunOptions bound one Run.
type RunOptions struct {
	Timeout   time.Duration // 0: only ctx ends it
	MaxOutput int           // bytes kept per stream (head and tail)
	// Grace is how long a stopped group gets between SIGTERM and SIGKILL.
	Grace time.Duration
	// OnOutput, when set, sees every chunk as it is read ("stdout" or
	// "stderr"), from the reading goroutines. It must not block for long and
	// must not keep chunk.
	OnOutput func(stream string, chunk []byte)
	// atStop runs when a timeout or ctx is about to stop the child (Run:
	// counting its tasks for the limit it may have hit).
	atStop func(p *Process)
}

// Result is how a Run ended.
type Result struct {
	ExitCode int    // the shell convention: 128+N when killed by signal N
	Signal   string // the signal that ended the leader, if any
	// Limit is the per-call limit the command hit ("memory", "processes"):
	// certain when a cgroup's counters say so or a stopped tree held
	// MaxProcs tasks (LimitCertain), else inferred from what an rlimit
	// leaves behind, with LimitEvidence saying what (limithit.go).
	Limit         string
	LimitCertain  bool
	LimitEvidence string
	Stdout        string
	Stderr        string
	Truncated     bool // a stream was longer than MaxOutput
	TimedOut      bool
	Cancelled     bool // ctx ended first
}

// Defaults of RunOptions.
const (
	defaultGrace = time.Second
	// drainWait bounds reading the pipes after the leader was reaped, for
	// a process that left the group but kept a copy of stdout (without a
	// PID namespace).
	drainWait = 500 * time.Millisecond
	readChunk = 64 << 10
)

// Run starts spec with io (whose Stdout and Stderr it replaces with its
// captures) under lim, waits for it under the timeout and ctx, and kills
// what is left before returning, whatever happened: nothing the command
// started outlives the call. The error is non-nil only when the command
// could not start.
func (l *Launcher) Run(ctx context.Context, spec Spec, io IO, lim Limits, opts RunOptions) (Result, error) {
	if opts.Grace <= 0 {
		opts.Grace = defaultGrace
	}
	streams, err := openStreams(opts)
	if err != nil {
		closeAll(spec.Files)
		return Result{}, err
	}
	io.Stdout, io.Stderr = streams.childEnds[0], streams.childEnds[1]
	p, err := l.Start(spec, io, lim)
	streams.closeChildEnds()
	if err != nil {
		streams.abort()
		return Result{}, err
	}
	fb := l.rlimitFallbacks(lim)
	tasksAtStop := -1
	if fb.procs {
		opts.atStop = func(p *Process) { tasksAtStop = treeTasks(p.Pid()) }
	}
	res := wait(ctx, p, opts)
	p.Kill()
	streams.finish()
	res.Stdout, res.Stderr = streams.out.String(), streams.err.String()
	res.Truncated = streams.out.Truncated() || streams.err.Truncated()
	exit, _ := p.Wait()
	res.ExitCode, res.Signal, res.Limit, res.LimitCertain = exit.Code, exit.Signal, exit.Limit, exit.Limit != ""
	inferLimit(&res, fb, lim, tasksAtStop, res.ExitCode != 0 || res.Signal != "" || res.TimedOut, res.Stderr)
	return res, nil
}

// wait waits for the leader, the timeout or ctx; on the latter two it stops
// the group (SIGTERM, grace, SIGKILL).
func wait(ctx context.Context, p *Process, opts RunOptions) Result {
	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var res Result
	select {
	case <-p.Done():
	case <-timeout:
		res.TimedOut = true
		stop(p, opts)
	case <-ctx.Done():
		res.Cancelled = true
		stop(p, opts)
	}
	return res
}

func stop(p *Process, opts RunOptions) {
	if opts.atStop != nil {
		opts.atStop(p)
	}
	p.Stop(opts.Grace)
}

// streams are the two output pipes and their readers.
type streams struct {
	out, err   *Capture
	readers    []*os.File
	childEnds  []*os.File
	wg         sync.WaitGroup
	readerDone chan struct{}
}

func openStreams(opts RunOptions) (*streams, error) {
	s := &streams{out: NewCapture(opts.MaxOutput), err: NewCapture(opts.MaxOutput), readerDone: make(chan struct{})}
	for _, name := range []string{"stdout", "stderr"} {
		r, w, err := os.Pipe()
		if err != nil {
			s.closeChildEnds()
			s.abort()
			return nil, err
		}
		s.readers, s.childEnds = append(s.readers, r), append(s.childEnds, w)
		c := s.out
		if name == "stderr" {
			c = s.err
		}
		s.wg.Add(1)
		go s.read(r, c, name, opts.OnOutput)
	}
	go func() { s.wg.Wait(); close(s.readerDone) }()
	return s, nil
}

func (s *streams) read(r io.Reader, c *Capture, name string, on func(string, []byte)) {
	defer s.wg.Done()
	buf := make([]byte, readChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.Write(buf[:n])
			if on != nil {
				on(name, buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}

// closeChildEnds closes the parent's copies of the write ends, so the
// readers see EOF once every process holding them is gone.
func (s *streams) closeChildEnds() {
	for _, w := range s.childEnds {
		w.Close()
	}
}

// finish waits for the readers to reach EOF, at most drainWait, then
// closes the read ends, which ends any read still blocked.
func (s *streams) finish() {
	t := time.NewTimer(drainWait)
	defer t.Stop()
	select {
	case <-s.readerDone:
	case <-t.C:
	}
	s.abort()
	<-s.readerDone
}

func (s *streams) abort() {
	for _, r := range s.readers {
		r.Close()
	}
}
