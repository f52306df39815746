package plugins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/internal/logsink"
)

// mcpVersion is the protocol revision the client asks for. Pinning it
// skips the SDK's newer server/discover probe, which servers of the
// revisions in use today answer only with an error, and keeps the list
// semantics (no client-side caching of tools/list) that list_changed
// relies on.
const mcpVersion = "2025-11-25"

// stdinStall bounds one write to a server's stdin: a server that stops
// reading is broken, and a blocked write must not hold a call (or the
// sidecar's shutdown) forever.
const stdinStall = 10 * time.Second

// server is one running MCP server: its process, the client session over
// its stdio, and the goroutines that watch them. It is created by
// startServer and ends with stop or by dying; either way dead is closed and
// why says what happened.
type server struct {
	plugin   string
	proc     Process
	session  *mcp.ClientSession
	frames   *frameFilter
	stderr   *stderrLog
	progress *progressCalls
	log      zerolog.Logger
	relist   chan struct{} // a list_changed arrived (coalesced)

	mu       sync.Mutex
	stopping string // why we stopped it ("" = we did not)
	why      string
	dead     chan struct{}
}

// serverConfig is what starting a server takes.
type serverConfig struct {
	plugin   string
	launch   Launch
	timeout  time.Duration // start to tools listed
	limit    int           // largest message
	maxTools int
	version  string // the sidecar's, sent as clientInfo
	host     hostNotifier
	log      zerolog.Logger
}

// hostNotifier is the part of tools.Host the progress relay needs.
type hostNotifier interface {
	Notify(ctx context.Context, method string, params any) error
}

// startServer launches the process, completes the MCP handshake and reads
// its tools, all within the timeout. On failure the process is gone and
// the error says why, with the end of its stderr.
func startServer(ctx context.Context, l Launcher, c serverConfig) (*server, []*mcp.Tool, error) {
	proc, err := l.Launch(c.launch)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot start %s: %w", c.launch.Argv[0], err)
	}
	s := &server{plugin: c.plugin, proc: proc, log: c.log, relist: make(chan struct{}, 1), dead: make(chan struct{})}
	s.stderr = drainStderr(proc.Stderr(), c.log)
	s.frames = newFrameFilter(proc.Stdout(), c.limit)
	s.frames.onNoise, s.frames.onDrop = noiseLoggers(c.log)
	s.progress = newProgressCalls(c.host)
	hctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	// A server that never answers, or answers garbage, must not hold the
	// start: when the deadline passes the process is killed, which ends
	// every read and write of the session.
	unwatch := context.AfterFunc(hctx, func() { proc.Stop(0) })
	list, err := s.handshake(hctx, c)
	if !unwatch() && err == nil {
		err = hctx.Err()
	}
	if err != nil {
		return nil, nil, s.failedStart(hctx, c.timeout, err)
	}
	go s.watch()
	return s, list, nil
}

// handshake runs initialize and reads every page of tools/list.
func (s *server) handshake(ctx context.Context, c serverConfig) ([]*mcp.Tool, error) {
	conn := newStdioConn(s.frames, s.proc.Stdout(), stallWriter{s.proc.Stdin()})
	conn.progress = s.progress.arrived
	session, err := s.client(c).Connect(ctx, stdioTransport{conn}, &mcp.ClientSessionOptions{ProtocolVersion: mcpVersion})
	if err != nil {
		return nil, fmt.Errorf("the MCP handshake (initialize) failed: %w", err)
	}
	s.session = session
	return s.listTools(ctx, c.maxTools)
}

// noiseLoggers log, rate-limited, what the frame filter drops.
func noiseLoggers(log zerolog.Logger) (onNoise func([]byte), onDrop func(string)) {
	rate := newTokenBucket(20, 2)
	onNoise = func(line []byte) {
		if rate.take() {
			log.Warn().Str("stdout", clip.Within(string(line), 300)).Msg("plugin wrote a line to stdout that is not JSON-RPC; dropped")
		}
	}
	onDrop = func(what string) {
		if rate.take() {
			log.Warn().Str("dropped", what).Msg("plugin notification dropped (over the rate limit or the size limit)")
		}
	}
	return onNoise, onDrop
}

// client builds the MCP client of one server. It declares no capabilities
// (no roots, sampling or elicitation): the manifest's arguments, not the
// sidecar, decide what the server may see.
func (s *server) client(c serverConfig) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "steerable-sidecar", Version: c.version}, &mcp.ClientOptions{
		Logger:                      logsink.Slog(c.log, "mcp-sdk", sdkLevel),
		Capabilities:                &mcp.ClientCapabilities{},
		MultiRoundTrip:              &mcp.MultiRoundTripOptions{Disabled: true},
		ProgressNotificationHandler: s.progress.handle,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.relist <- struct{}{}:
			default: // one is pending already
			}
		},
		// A plugin server before MCP 2026-07-28 may log through the
		// protocol; its lines join its stderr, where later servers log.
		//lint:ignore SA1019 the logging of plugin servers before 2026-07-28 (SEP-2577)
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			s.stderr.queue(fmt.Sprintf("[%s] %v", r.Params.Level, r.Params.Data))
		},
	})
}

// failedStart stops what is left and explains a failed start.
func (s *server) failedStart(hctx context.Context, timeout time.Duration, err error) error {
	exited := false
	if hctx.Err() == nil {
		select { // an exit and the EOF it causes race; give the exit a moment
		case <-s.proc.Done():
			exited = true
		case <-time.After(200 * time.Millisecond):
		}
	}
	if s.session != nil {
		go s.session.Close()
	}
	s.proc.Stop(0)
	s.stderr.Wait(500 * time.Millisecond)
	close(s.dead)
	var why string
	switch {
	case exited:
		why = fmt.Sprintf("the server exited during start-up (%s)", s.proc.Exit())
	case errors.Is(hctx.Err(), context.DeadlineExceeded):
		why = fmt.Sprintf("the server did not answer initialize and tools/list within %d ms (STEERABLE_PLUGIN_START_TIMEOUT_MS)", timeout.Milliseconds())
	case hctx.Err() != nil:
		why = "the start was cancelled"
	default:
		why = err.Error()
	}
	return errors.New(why + s.evidence())
}

// evidence is what the server left behind that explains a failure: the
// end of its stderr and what it wrote to stdout that was not JSON-RPC.
func (s *server) evidence() string {
	var b strings.Builder
	if tail := s.stderr.Tail(); tail != "" {
		fmt.Fprintf(&b, "; its stderr ends: %q", clip.Within(tail, 1000))
	}
	if n, first := s.frames.Noise(); n > 0 {
		fmt.Fprintf(&b, "; it wrote %d line(s) to stdout that are not JSON-RPC (an MCP server must write only protocol messages there), the first: %q", n, first)
	}
	return b.String()
}

// watch waits for the process to exit or the session to break, and makes
// sure the other follows: a server is either fully up or fully gone.
func (s *server) watch() {
	closed := make(chan struct{})
	go func() { s.session.Wait(); close(closed) }()
	exited := false
	select {
	case <-s.proc.Done():
		exited = true
	case <-closed:
		// A server that exits closes its stdout first: give the exit a
		// moment to be reaped, so the reason names it.
		select {
		case <-s.proc.Done():
			exited = true
		case <-time.After(200 * time.Millisecond):
		}
	}
	s.proc.Stop(0) // the group, and what the leader left behind
	s.stderr.Wait(500 * time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping != "" {
		s.why = s.stopping
	} else {
		s.why = s.deathReason(exited)
	}
	close(s.dead)
}

// deathReason says why a server nobody stopped is gone: a broken
// connection (the frame filter's error), else its exit, else a closed
// stdout.
func (s *server) deathReason(exited bool) string {
	why := "the server closed its stdout"
	if err := s.frames.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
		why = "the connection broke: " + err.Error()
	} else if exited {
		why = fmt.Sprintf("the server process exited (%s)", s.proc.Exit())
	}
	return why + s.evidence()
}

// gone returns why the server is gone ("" while it runs), and whether it
// died rather than being stopped by the sidecar.
func (s *server) gone() (why string, died bool) {
	select {
	case <-s.dead:
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.why, s.stopping == ""
	default:
		return "", false
	}
}

// listTools reads every page of tools/list, at most maxTools tools. A
// cursor the server repeats ends the loop with an error instead of going
// round forever.
func (s *server) listTools(ctx context.Context, maxTools int) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	seen := map[string]bool{}
	cursor := ""
	for {
		res, err := s.session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("tools/list failed: %w", err)
		}
		out = append(out, res.Tools...)
		if len(out) > maxTools {
			return nil, fmt.Errorf("the server lists more than %d tools (STEERABLE_PLUGIN_MAX_TOOLS)", maxTools)
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list pagination repeats the cursor %q", clip.Within(res.NextCursor, 100))
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// stop ends the server the way MCP's stdio transport asks: close its
// stdin, let it exit within grace, then SIGTERM, then SIGKILL the whole
// tree. why is what calls still arriving are told ("disabled", …).
func (s *server) stop(why string, grace time.Duration) {
	s.mu.Lock()
	if s.stopping == "" {
		s.stopping = why
	}
	s.mu.Unlock()
	go s.session.Close() // closes stdin; it may block on a server that stopped reading
	if grace > 0 {
		select {
		case <-s.proc.Done():
		case <-time.After(grace):
		}
	}
	s.proc.Stop(grace)
	<-s.dead
}

// stallWriter bounds each write to the server's stdin (stdinStall).
type stallWriter struct{ w io.WriteCloser }

func (w stallWriter) Write(p []byte) (int, error) {
	d, ok := w.w.(interface{ SetWriteDeadline(time.Time) error })
	if ok {
		_ = d.SetWriteDeadline(time.Now().Add(stdinStall))
	}
	n, err := w.w.Write(p)
	if err != nil && ok {
		return n, fmt.Errorf("the server stopped reading its stdin: %w", err)
	}
	return n, err
}

func (w stallWriter) Close() error { return w.w.Close() }

// sdkLevel keeps the SDK's own records of a plugin's connection (a dropped
// malformed tool, a jsonrpc2 internal error) at their level, tagged like
// every other line of the plugin; its debug records are left out: it logs
// every message at that level.
func sdkLevel(l slog.Level) zerolog.Level {
	switch {
	case l >= slog.LevelError:
		return zerolog.ErrorLevel
	case l >= slog.LevelWarn:
		return zerolog.WarnLevel
	case l >= slog.LevelInfo:
		return zerolog.InfoLevel
	}
	return zerolog.Disabled
}
