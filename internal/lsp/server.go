package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// server supervises one configured language server: it starts the process
// on first need, in the background so a caller's own deadline decides how
// long it waits; restarts it after a crash, with a backoff that grows with
// consecutive crashes; and stops it when idle.
type server struct {
	spec Spec
	m    *Manager

	mu        sync.Mutex
	cl        *client
	proc      Process
	starting  chan struct{} // closed when the start in progress ends
	startErr  error         // the last start's failure, nil once one succeeds
	crashes   int           // consecutive crashes
	lastExit  string        // how the last crash ended
	upSince   time.Time
	notBefore time.Time // the backoff: no start before this
	inflight  int
	lastUse   time.Time
	idle      *time.Timer
	closed    bool
	stderr    *tail
}

// errClosed: the sidecar is shutting down.
var errClosed = errors.New("the sidecar is shutting down; language servers are stopped")

// healthyRun resets the crash count: a server that stayed up this long
// and then crashed restarts at once.
const healthyRun = time.Minute

func (s *server) backoff() time.Duration {
	if s.crashes <= 1 {
		return 0
	}
	d := 250 * time.Millisecond << (s.crashes - 2)
	if d > 30*time.Second || d <= 0 {
		d = 30 * time.Second
	}
	return d
}

// acquire returns the running client, starting the server if needed and
// waiting at most until ctx is done. release must be called after use.
func (s *server) acquire(ctx context.Context) (*client, func(), error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, nil, errClosed
		}
		if s.cl != nil {
			cl, proc := s.cl, s.proc
			select {
			case <-cl.conn.DisconnectNotify(): // died, and watch has not seen it yet
				s.mu.Unlock()
				select {
				case <-proc.Done():
				case <-ctx.Done():
					return nil, nil, fmt.Errorf("language server %s (%s) closed its connection: %w", s.spec.Name, s.spec.Command, ctx.Err())
				}
				s.exited(cl, proc)
				continue
			default:
			}
			s.inflight++
			s.mu.Unlock()
			return cl, s.release, nil
		}
		ch := s.starting
		if ch == nil {
			ch = make(chan struct{})
			s.starting = ch
			go s.start(ch, time.Until(s.notBefore))
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("language server %s (%s) is still starting: %w", s.spec.Name, s.spec.Command, ctx.Err())
		}
		s.mu.Lock()
		err := s.startErr
		up := s.cl != nil
		s.mu.Unlock()
		if !up && err != nil {
			return nil, nil, err
		}
	}
}

func (s *server) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	s.lastUse = time.Now()
	s.armIdle()
}

// armIdle (mu held) schedules the idle stop.
func (s *server) armIdle() {
	if s.m.opts.IdleTimeout <= 0 || s.closed {
		return
	}
	if s.idle == nil {
		s.idle = time.AfterFunc(s.m.opts.IdleTimeout, s.idleCheck)
		return
	}
	s.idle.Reset(s.m.opts.IdleTimeout)
}

func (s *server) idleCheck() {
	s.mu.Lock()
	if s.cl == nil || s.inflight > 0 {
		s.mu.Unlock()
		return
	}
	if left := s.m.opts.IdleTimeout - time.Since(s.lastUse); left > 0 {
		s.idle.Reset(left)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.m.log.Info().Str("server", s.spec.Name).Msg("language server idle; stopping it")
	s.stop(s.m.opts.StopGrace, false)
}

// start launches and initialises the server; ch is closed when it is up
// or has failed.
func (s *server) start(ch chan struct{}, wait time.Duration) {
	if wait > 0 {
		time.Sleep(wait)
	}
	cl, proc, stderr, err := s.launch()
	s.mu.Lock()
	defer close(ch)
	defer s.mu.Unlock()
	s.starting = nil
	if s.closed && err == nil {
		go func() { cl.conn.Close(); proc.Stop(0) }()
		err = errClosed
	}
	if err != nil {
		s.startErr = err
		s.crashes++
		s.notBefore = time.Now().Add(s.backoff())
		s.m.log.Warn().Str("server", s.spec.Name).Err(err).Msg("language server failed to start")
		return
	}
	s.cl, s.proc, s.stderr, s.startErr, s.upSince, s.lastUse = cl, proc, stderr, nil, time.Now(), time.Now()
	s.armIdle()
	go s.watch(cl, proc)
	s.m.log.Info().Str("server", s.spec.Name).Str("command", s.spec.Command).Msg("language server started")
}

// watch notices the process ending: a crash unless stop ended it.
func (s *server) watch(cl *client, proc Process) {
	<-proc.Done()
	s.exited(cl, proc)
}

// invalidate ends a server whose connection closed under a request: it
// is of no use any more, and the next acquire starts a new one.
func (s *server) invalidate(cl *client) {
	s.mu.Lock()
	proc := s.proc
	same := s.cl == cl
	s.mu.Unlock()
	if !same {
		return
	}
	cl.conn.Close()
	proc.Stop(0)
	s.exited(cl, proc)
}

// exited records the end of proc (once: later calls find it replaced).
func (s *server) exited(cl *client, proc Process) {
	cl.conn.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != proc {
		return // stopped on purpose
	}
	s.cl, s.proc = nil, nil
	if time.Since(s.upSince) > healthyRun {
		s.crashes = 0
	}
	s.crashes++
	s.lastExit = proc.Exit() + s.stderr.suffix()
	s.notBefore = time.Now().Add(s.backoff())
	s.m.log.Warn().Str("server", s.spec.Name).Str("exit", s.lastExit).Msg("language server exited; it restarts on next use")
}

// launch starts the process under the sandbox and runs initialize within
// the start timeout.
func (s *server) launch() (*client, Process, *tail, error) {
	o := s.m.opts
	cache := filepath.Join(o.CacheRoot, s.spec.Name)
	tmp := filepath.Join(o.TempRoot, "lsp-"+s.spec.Name)
	for _, d := range []string{cache, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, nil, nil, fmt.Errorf("language server %s: its directory: %v", s.spec.Name, err)
		}
	}
	if real, err := filepath.EvalSymlinks(cache); err == nil {
		cache = real
	}
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	proc, err := o.Launcher.Launch(append([]string{s.spec.Command}, s.spec.Args...), o.Workspace,
		serverEnv(o.Environ, s.spec.Env, cache, tmp), []string{cache, tmp})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("language server %s cannot start: %v; install it or fix STEERABLE_LSP_CONFIG", s.spec.Name, err)
	}
	stderr := newTail(4096)
	go func() { _, _ = io.Copy(stderr, proc.Stderr()) }()
	cl := newClient(s.spec, o.Workspace, proc.Stdout(), proc.Stdin())
	ctx, cancel := context.WithTimeout(context.Background(), o.StartTimeout)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- cl.initialize(ctx, o.Version) }()
	select {
	case err = <-errc:
	case <-proc.Done():
		err = errors.New("exited: " + proc.Exit())
	}
	if err == nil {
		return cl, proc, stderr, nil
	}
	if lostServer(err) { // it closed stdout or stdin: say how it ended, within the start timeout
		select {
		case <-proc.Done():
			err = errors.New("exited: " + proc.Exit())
		case <-ctx.Done():
		}
	}
	cl.conn.Close()
	proc.Stop(0)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("language server %s (%s) did not answer initialize within %d ms (STEERABLE_LSP_START_TIMEOUT_MS)%s",
			s.spec.Name, s.spec.Command, o.StartTimeout.Milliseconds(), stderr.suffix())
	} else {
		err = fmt.Errorf("language server %s (%s) failed to initialize: %v%s", s.spec.Name, s.spec.Command, err, stderr.suffix())
	}
	return nil, nil, nil, err
}

// serverEnv is the scrubbed environment with the server's own variables,
// and every cache a server may write pointed into its cache dir: HOME,
// XDG_CACHE_HOME, GOCACHE and TMPDIR. Go module lookups go to the module
// cache as it is (read-only to the server) and never to the network.
func serverEnv(environ []string, extra map[string]string, cache, tmp string) []string {
	get := func(k string) string {
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	set := map[string]string{
		"XDG_CACHE_HOME": cache, "GOCACHE": filepath.Join(cache, "go-build"), "TMPDIR": tmp,
		"GOPROXY": "off", "GOTOOLCHAIN": "local", "GOTELEMETRY": "off",
	}
	if home := get("HOME"); home != "" {
		gopath := get("GOPATH")
		if gopath == "" {
			gopath = filepath.Join(home, "go")
		}
		set["GOPATH"] = gopath
		if get("GOMODCACHE") == "" {
			set["GOMODCACHE"] = filepath.Join(gopath, "pkg", "mod")
		}
	}
	set["HOME"] = cache
	for k, v := range extra {
		set[k] = v
	}
	out := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// stop shuts the server down (shutdown, exit, then the tree is killed
// after grace). final: the manager is closing, nothing starts again.
func (s *server) stop(grace time.Duration, final bool) {
	s.mu.Lock()
	if final {
		s.closed = true
	}
	cl, proc := s.cl, s.proc
	s.cl, s.proc = nil, nil
	if s.idle != nil {
		s.idle.Stop()
	}
	s.mu.Unlock()
	if proc == nil {
		return
	}
	if grace > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		cl.shutdown(ctx)
		cancel()
	}
	cl.conn.Close()
	proc.Stop(grace)
}

// state describes the server for checks.lsp.
func (s *server) state() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prefix := s.spec.Name + " (" + s.spec.Command + ")"
	switch {
	case s.cl != nil && s.crashes > 0:
		return fmt.Sprintf("%s running, restarted after %d crash(es), last: %s", prefix, s.crashes, s.lastExit), 1
	case s.cl != nil:
		return prefix + " running", 0
	case s.startErr != nil:
		return s.startErr.Error(), 2
	case s.crashes > 0:
		return fmt.Sprintf("%s exited (%s); it restarts on next use", prefix, s.lastExit), 1
	}
	return prefix + " starts on first use", 0
}

// tail keeps the last bytes a server wrote to stderr, for error messages.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// suffix is "; its stderr ends: ..." or "".
func (t *tail) suffix() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	if len(s) > 500 {
		s = "…" + s[len(s)-500:]
	}
	return "; its stderr ends: " + s
}
