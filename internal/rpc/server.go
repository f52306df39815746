package rpc

import (
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"steerable.dev/sidecar/internal/todo"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/internal/wire"
	"steerable.dev/sidecar/protocol"
)

// Options configure a Server. cmd fills them from the Config.
type Options struct {
	Version       string
	Framing       string // FramingNewline (default) or FramingContentLength
	MaxFrameBytes int
	// MaxOutputQueueBytes bounds the frames queued for a host that does not
	// read stdout (STEERABLE_MAX_OUTPUT_QUEUE_BYTES); 0 is the default.
	MaxOutputQueueBytes int
	MaxInflight         int
	ShutdownGrace       time.Duration
	QuietReady          bool    // skip the __SIDECAR_READY__ stderr line
	Logs                LogSink // stderr behind Log; nil: no ready line, nothing dropped
	Log                 zerolog.Logger
}

// LogSink is the stderr the logger writes through (logsink.Sink): the ready
// marker is announced on it, never blocking, and its count of dropped lines
// is part of Health.
type LogSink interface {
	Announce(line []byte)
	Dropped() uint64
}

// Services are what the methods act on.
type Services struct {
	Registry   *tools.Registry
	Dispatcher *tools.Dispatcher
	// HostTools takes host_tools.register (nil: the method is refused).
	HostTools *tools.HostTools
	// Checks reports the subsystems' conditions for Health.checks. With
	// settle it waits for checks still being established at boot (the ready
	// marker passes false: it must not wait). Once a call with settle has
	// returned, later calls must not block: system.ping is then answered on
	// the read loop.
	Checks func(settle bool) map[string]protocol.Check
	// ReadState is the session's read state (read_state.seed/get); nil
	// refuses those methods.
	ReadState ReadState
	// Plugins answers plugin.*; nil means no plugin source is configured.
	Plugins Plugins
	// Sessions are bash_session's shells (session.list, session.close);
	// nil refuses those methods.
	Sessions Sessions
	// Todos is todo_write's list (todo.list); nil refuses the method.
	Todos *todo.Store
	// Checkpoints answers checkpoint.* and tool.undo; nil refuses them.
	Checkpoints Checkpoints
	// AfterReady, if set, starts what must not delay the ready marker
	// (the sandbox probe); it runs once the marker and lifecycle.ready
	// are out.
	AfterReady func()
}

// ReadyMarker starts the stderr line written once the sidecar serves; the
// Health JSON follows it (SPEC §1).
const ReadyMarker = "__SIDECAR_READY__:"

// Shutdown reasons (lifecycle.shutdown).
const (
	ReasonNormal      = "normal"
	ReasonEOF         = "eof"
	ReasonShutdownNow = "shutdown_now"
	ReasonSignal      = "signal"
)

// After a cancel, how long tools get to return (they kill their process
// groups on cancel), and how long the final notification may take to write
// before the process exits anyway.
const (
	cancelWait = 2 * time.Second
	// DefaultMaxOutputQueueBytes is STEERABLE_MAX_OUTPUT_QUEUE_BYTES's
	// default.
	DefaultMaxOutputQueueBytes = 8 << 20
	finalWrite                 = 500 * time.Millisecond
)

// Server serves one host over one connection.
type Server struct {
	opts    Options
	svc     Services
	peer    *Peer
	d       *dispatcher
	st      *wire.ObjectStream // set by Serve
	conn    *jsonrpc2.Conn     // on st, set by Serve
	log     zerolog.Logger
	started time.Time
	closing atomic.Bool

	pid int

	shedding    bool          // the read loop answers busy (conn.go's pace)
	warmed      chan struct{} // closed when warm has compiled the schemas
	checksJSON  checksCache
	settled     atomic.Bool // a ping has waited for the checks (system.go)
	batchHealth batchHealth // the read loop's (pingOnReader)

	stopOnce sync.Once
	stop     chan string // graceful: system.shutdown or EOF
	nowOnce  sync.Once
	now      chan string // immediate: shutdown_now, a signal, a dead stdout
}

// NewServer builds a server. peer is the reverse channel the tools were
// built with; Serve binds it to the connection.
func NewServer(opts Options, svc Services, peer *Peer) (*Server, error) {
	if opts.Framing == "" {
		opts.Framing = FramingNewline
	}
	if opts.Framing != FramingNewline && opts.Framing != FramingContentLength {
		return nil, fmt.Errorf("framing %q: use %q or %q", opts.Framing, FramingNewline, FramingContentLength)
	}
	if opts.MaxInflight < 1 || opts.MaxFrameBytes < 1 {
		return nil, fmt.Errorf("MaxInflight and MaxFrameBytes must be positive")
	}
	svc.ReadState = absent(svc.ReadState)
	svc.Sessions = absent(svc.Sessions)
	s := &Server{
		opts: opts, svc: svc, peer: peer, log: opts.Log, started: time.Now(), pid: os.Getpid(),
		stop: make(chan string, 1), now: make(chan string, 1),
		warmed: make(chan struct{}),
	}
	if opts.MaxOutputQueueBytes <= 0 {
		opts.MaxOutputQueueBytes = DefaultMaxOutputQueueBytes
	}
	s.opts = opts
	s.d = newDispatcher(s, newLimits(opts.MaxInflight), opts.Log)
	return s, nil
}

// absent turns a nil pointer held in a service interface into a nil
// interface, so the "not configured" refusals see it: callers hand over
// their *Store or *Manager whether or not it was built.
func absent[I any](v I) I {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		var zero I
		return zero
	}
	return v
}

// Serve runs the connection until shutdown and returns the reason. It
// writes the ready marker and lifecycle.ready first, and lifecycle.shutdown
// last.
func (s *Server) Serve(in io.Reader, out io.Writer) string {
	s.connect(in, out)
	s.announceReady()
	s.st.Start() // after lifecycle.ready: it is always the first frame
	go s.warm()

	var reason string
	select {
	case reason = <-s.stop:
		s.drain(reason)
	case reason = <-s.now:
	}
	s.closing.Store(true)
	s.d.stopAccepting()
	s.d.cancelAll(errCancelledByStop)
	if !s.d.wait(cancelWait) {
		s.log.Warn().Msg("some calls did not return after cancellation")
	}
	s.notifyBounded(protocol.NotificationShutdown, protocol.LifecycleShutdownParams{Reason: reason})
	s.conn.Close()
	select { // closing the input ends the read loop, unless the reader ignores it
	case <-s.st.Ended():
	case <-time.After(finalWrite):
	}
	s.d.stopWorkers()
	s.log.Info().Str("reason", reason).Msg("sidecar stopped")
	return reason
}

// warm starts AfterReady, then compiles, after ready and off the request
// path, what start-up deferred: the method params schemas and the built-in
// tools' schemas.
func (s *Server) warm() {
	defer close(s.warmed)
	if s.svc.AfterReady != nil {
		s.svc.AfterReady()
	}
	// Compiling every schema takes the cores a host needs to read the
	// marker and send its first call (0.3–0.8 ms of spawn → ready on two
	// busy cores); a call that comes first compiles its own schema.
	time.Sleep(warmDelay)
	if s.closing.Load() {
		return
	}
	for _, m := range s.d.methods {
		if m.params != "" {
			s.d.schemas.Get(m.params)
		}
	}
	s.svc.Registry.Warm()
	// Compiling allocates far more than it keeps; hand the garbage back so
	// an idle sidecar stays small.
	debug.FreeOSMemory()
}

// warmDelay is how long after the marker warm starts compiling.
const warmDelay = 5 * time.Millisecond

// drain stops accepting work and lets in-flight calls finish within the
// grace period; a shutdown_now during the drain cuts it short. At the end
// of the input nothing more can arrive, and what was read before it is
// served as if the input were still open (SPEC §1: `echo '{…ping}' |
// steerable-sidecar` answers an ordinary ping, not shutting_down).
func (s *Server) drain(reason string) {
	if reason != ReasonEOF {
		s.closing.Store(true)
		s.d.stopAccepting()
	}
	t := time.NewTimer(s.opts.ShutdownGrace)
	defer t.Stop()
	select {
	case <-s.d.idleChan():
	case <-t.C:
		s.log.Warn().Dur("grace", s.opts.ShutdownGrace).Msg("grace period over; cancelling in-flight calls")
	case <-s.now:
	}
}

// beginShutdown starts a graceful shutdown (system.shutdown, EOF).
func (s *Server) beginShutdown(reason string) {
	s.stopOnce.Do(func() { s.stop <- reason })
}

// ShutdownNow stops at once: every call is cancelled (tools kill their
// process groups) and Serve returns (system.shutdown_now, SIGTERM, SIGINT).
func (s *Server) ShutdownNow(reason string) {
	s.nowOnce.Do(func() { s.now <- reason })
}

func (s *Server) announceReady() {
	h := s.Health(false)
	if !s.opts.QuietReady && s.opts.Logs != nil {
		b, _ := h.AppendJSON([]byte(ReadyMarker)) // no reflection: its first use costs a start-up 0.3 ms
		s.opts.Logs.Announce(append(b, '\n'))
		// The sink's drainer is now runnable on this P: let it write the
		// marker before start-up goes on (warm, the read loop, the probe).
		runtime.Gosched()
	}
	ready := protocol.LifecycleReadyParams{
		Version: s.opts.Version, ProtocolVersion: protocol.ProtocolVersion,
		PID: os.Getpid(), ListenInfo: protocol.ListenInfo{Transport: "stdio"},
	}
	if err := s.peer.notify(context.Background(), protocol.NotificationReady, ready); err != nil {
		s.log.Warn().Err(err).Msg("lifecycle.ready not sent")
	}
	s.log.Info().Str("status", h.Status).Int("tools", h.LoadedTools).Msg("sidecar ready")
}

// notifyBounded sends a notification and waits until it and every frame
// before it are written, but never more than finalWrite: a host that
// stopped reading must not keep the process alive.
func (s *Server) notifyBounded(method string, params any) {
	ctx, cancel := context.WithTimeout(context.Background(), finalWrite)
	defer cancel()
	_ = s.peer.notify(ctx, method, params)
	_ = s.st.Writer().Drain(ctx)
}

// Health is the answer of system.ping (settle: true) and the ready
// marker's payload (settle: false).
func (s *Server) Health(settle bool) protocol.Health {
	return s.health(s.checks(settle))
}

func (s *Server) checks(settle bool) protocol.Checks {
	if s.svc.Checks == nil {
		return protocol.Checks{}
	}
	return s.svc.Checks(settle)
}

// health is the Health with these checks.
func (s *Server) health(checks protocol.Checks) protocol.Health {
	status := protocol.StatusOK
	for _, c := range checks {
		if c.Status == protocol.CheckError {
			status = protocol.StatusDegraded
		}
	}
	if s.closing.Load() {
		status = protocol.StatusShuttingDown
	}
	out := s.outputStats()
	return protocol.Health{
		Status: status, Version: s.opts.Version, ProtocolVersion: protocol.ProtocolVersion,
		UptimeMs: time.Since(s.started).Milliseconds(), PID: s.pid,
		GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		LoadedTools: s.svc.Registry.Len(), DroppedLogLines: s.droppedLogLines(),
		OutputQueueBytes: uint64(out.QueuedBytes), DroppedNotifications: out.Dropped, Checks: checks,
	}
}

// outputStats is stdout's queue (zero before Serve).
func (s *Server) outputStats() wire.Stats {
	if s.st == nil {
		return wire.Stats{}
	}
	return s.st.Writer().Stats()
}

func (s *Server) droppedLogLines() uint64 {
	if s.opts.Logs == nil {
		return 0
	}
	return s.opts.Logs.Dropped()
}
