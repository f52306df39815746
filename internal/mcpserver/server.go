package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/logsink"
	"steerable.dev/sidecar/internal/tools"
)

// Tools is what a session serves: one registry, its dispatcher, and the
// workspace root the tools resolve paths against (absolute, symlinks
// resolved).
type Tools struct {
	Registry   *tools.Registry
	Dispatcher *tools.Dispatcher
	Workspace  string
}

// Opener boots the tools. root is the directory of the client's first
// acceptable file:// root, or "" when the workspace does not come from the
// roots or the client lists none (the caller's configured default applies).
type Opener func(ctx context.Context, root string) (Tools, error)

// RootCheck refuses a client's root that must not be a workspace (the
// filesystem root, a credential store), saying why and which roots are
// acceptable; nil accepts it.
type RootCheck func(dir string) error

// Options configure a Server. Exactly one of Tools (already open) and Open
// is set. Open runs at once, in the background, so the handshake is
// answered while the tools boot; with Roots it runs after
// notifications/initialized, in the client's first root.
type Options struct {
	Version  string // serverInfo.version
	Strategy string // tools/list: full (default), minimal or progressive
	Host     *Host  // the Host the tools were built with
	Tools    *Tools
	Open     Opener
	Roots    bool // the workspace is the client's first root (with Open)
	// CheckRoot, with Roots, refuses roots: the workspace is the first
	// root it accepts; nil accepts every root.
	CheckRoot RootCheck
	// MaxInflight bounds the tools/call requests running at once; excess
	// calls wait (STEERABLE_MAX_INFLIGHT; 0 means 64).
	MaxInflight int
	// LocalNetwork says sandboxed commands may use the network
	// (STEERABLE_SANDBOX_NETWORK): local-mode tools then carry
	// openWorldHint.
	LocalNetwork bool
	// Results "model" sends each built-in tool's result as the text the
	// model reads best (modelText); "" or "json" sends today's shape.
	Results string
	Log     zerolog.Logger
}

// Server is an MCP server for one session (one client, as over stdio): the
// read state, the unlocked tools and the workspace belong to it.
type Server struct {
	opts   Options
	log    zerolog.Logger
	sdk    *mcp.Server
	send   mcp.MethodHandler // the SDK's sending handler (list_changed)
	sem    chan struct{}     // tools/call in-flight cap
	ws     *workspace
	view   *view
	direct *direct // tools/call answered by a StreamTransport connection itself; nil for other transports

	connected atomic.Bool
	stop      context.Context // ends every call when Serve's context ends
	stopCalls context.CancelFunc
	observe   sync.Once // the registry observer, added once the tools are known

	mu          sync.Mutex
	initialized map[*mcp.ServerSession]bool // sessions past notifications/initialized
}

// New returns a server; it fails on an unknown strategy or, with open
// Tools, on a strategy the registry cannot serve (progressive without a
// wired tool_search; with Open, tools/list reports that).
func New(opts Options) (*Server, error) {
	if (opts.Tools == nil) == (opts.Open == nil) {
		return nil, errors.New("mcpserver: set exactly one of Options.Tools and Options.Open")
	}
	if opts.Host == nil {
		return nil, errors.New("mcpserver: Options.Host is required (the Host the tools were built with)")
	}
	v, err := newView(opts.Strategy, opts.LocalNetwork, opts.Log)
	if err != nil {
		return nil, err
	}
	v.results = opts.Results
	if opts.MaxInflight <= 0 {
		opts.MaxInflight = 64
	}
	s := &Server{opts: opts, log: opts.Log, view: v, sem: make(chan struct{}, opts.MaxInflight),
		initialized: map[*mcp.ServerSession]bool{}}
	s.stop, s.stopCalls = context.WithCancel(context.Background())
	if opts.Tools != nil {
		if err := s.opened(*opts.Tools); err != nil {
			return nil, err
		}
		s.ws = fixedWorkspace(*opts.Tools, opts.Log)
	} else {
		s.ws = openWorkspace(opts.Open, opts.Roots, opts.Log, s.opened)
		s.ws.check = opts.CheckRoot
	}
	s.sdk = mcp.NewServer(&mcp.Implementation{Name: "steerable-sidecar", Title: "steerable-sidecar", Version: opts.Version},
		withRootsAndLogging(s, &mcp.ServerOptions{
			Instructions:              instructions,
			Logger:                    logsink.Slog(opts.Log, "mcp-sdk", sdkLevel),
			InitializedHandler:        s.onInitialized,
			Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
			SupportedProtocolVersions: handshakeVersions(),
		}))
	s.sdk.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler { s.send = next; return next })
	s.sdk.AddReceivingMiddleware(s.receive)
	return s, nil
}

// instructions are the serverInfo instructions: what a model must know to
// use the tools without tripping the safety rules.
const instructions = "Tools of steerable-sidecar. Paths resolve against the workspace root. " +
	"Read a file with read_file before you write or edit it; pass the version read_file returned as " +
	"expectedVersion, and read again when a write is refused as stale. bash runs in an OS sandbox. " +
	"tool_search finds tools that are not in your list; a match becomes callable by its name."

// Serve runs one session over t until the client disconnects or ctx ends.
// When ctx ends (a signal), every running call is cancelled, which kills
// its processes, before the session closes: closing alone would wait for
// them.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	ss, err := s.Connect(ctx, t)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		s.stopCalls()
		ss.Close()
		err = <-done
	}
	if s.direct != nil {
		s.direct.wait() // cancelled when the connection closed
	}
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		err = nil
	}
	return err
}

// Connect starts the session over t. A Server serves one session: its read
// state and workspace belong to one client.
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	if !s.connected.CompareAndSwap(false, true) {
		return nil, errors.New("mcpserver: a Server serves one session; create another Server for another client")
	}
	var d *direct
	if st, ok := t.(*StreamTransport); ok {
		d = &direct{s: s}
		own := *st
		own.direct = d
		t = &own
	}
	ss, err := s.sdk.Connect(ctx, t, nil)
	if err != nil {
		return nil, err
	}
	if d != nil {
		d.session.Store(ss)
		s.direct = d
	}
	return ss, nil
}

// receive is the receiving middleware: tools/list and tools/call are this
// server's own (the SDK's tool table stays empty); the rest is the SDK's.
func (s *Server) receive(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			return s.serveList(ctx, req.(*mcp.ListToolsRequest))
		case "tools/call":
			r, err := s.serveCall(ctx, req.(*mcp.CallToolRequest))
			if err != nil {
				return nil, err
			}
			return encodeResult(r)
		}
		return next(ctx, method, req)
	}
}

// serveList is listTools with serveCall's panic guard.
func (s *Server) serveList(ctx context.Context, req *mcp.ListToolsRequest) (res mcp.Result, err error) {
	defer s.recoverHandler("tools/list", &err)
	return orNil(s.listTools(ctx, req))
}

// recoverHandler, deferred by a handler, turns its panic into a logged
// -32603: the session goes on.
func (s *Server) recoverHandler(method string, err *error) {
	if p := recover(); p != nil {
		s.log.Error().Str("method", method).Str("panic", fmt.Sprint(p)).Msg("MCP handler panicked")
		*err = internalError("internal error in the MCP server (a bug, logged by the sidecar)")
	}
}

// orNil keeps a typed nil result out of the mcp.Result interface.
func orNil[R interface {
	mcp.Result
	comparable
}](r R, err error) (mcp.Result, error) {
	var zero R
	if err != nil || r == zero {
		return nil, err
	}
	return r, nil
}

// onInitialized runs on the SDK's read loop when the client sends
// notifications/initialized: it logs the client and, when the workspace
// comes from the roots, settles it off the read loop (roots/list needs the
// loop to read the answer).
func (s *Server) onInitialized(_ context.Context, req *mcp.InitializedRequest) {
	ss := req.Session
	s.mu.Lock()
	s.initialized[ss] = true
	s.mu.Unlock()
	p := ss.InitializeParams()
	ev := s.log.Info().Bool("elicitation", canElicit(ss)).Bool("roots", hasRoots(ss))
	if p != nil && p.ClientInfo != nil {
		ev = ev.Str("client", p.ClientInfo.Name).Str("clientVersion", p.ClientInfo.Version)
	}
	if p != nil {
		ev = ev.Str("protocolVersion", p.ProtocolVersion)
	}
	ev.Msg("MCP session initialized")
	if s.ws.fromRoots {
		go s.ws.settle(ss)
	}
}

// onRootsChanged runs on the read loop: the recheck lists the roots off it.
func (s *Server) onRootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	go s.ws.recheck(req.Session)
}

// isInitialized reports whether ss sent notifications/initialized: before
// that, the server sends it no list changes.
func (s *Server) isInitialized(ss *mcp.ServerSession) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized[ss]
}

// canElicit reports whether the client declared form elicitation (an
// elicitation capability with neither form nor url means form, for clients
// of the 2025-06-18 revision). A client that asked for the 2026-07-28
// revision cannot be sent elicitation/create (revision.go): it is served
// as a client without elicitation.
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil || p.ProtocolVersion >= nextRevision {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// sdkLevel: the SDK narrates every connection at info, which is debug
// here, and its errors (a client's protocol misuse) are warnings.
func sdkLevel(l slog.Level) zerolog.Level {
	if l >= slog.LevelWarn {
		return zerolog.WarnLevel
	}
	return zerolog.DebugLevel
}
