package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
)

// workspace settles which directory the session's tools serve, and refuses
// work once the client moves its roots elsewhere: the read state (which
// versions the model has seen) and the sandbox (what bash may write) belong
// to the directory the tools were opened in.
type workspace struct {
	log       zerolog.Logger
	open      Opener            // nil: the tools were given open
	fromRoots bool              // the client's first acceptable root is the workspace
	check     RootCheck         // refuses roots; nil accepts all
	opened    func(Tools) error // checks and watches the tools once open

	once  sync.Once
	ready chan struct{}
	tools Tools
	err   error

	recheckMu sync.Mutex             // one recheck at a time: the last one lists the latest roots
	moved     atomic.Pointer[string] // the refusal while the first root is elsewhere
}

// Bounds of the wait for the client: its answer to roots/list, and a
// tools/list or tools/call waiting for the tools to open.
var (
	rootsWait  = 10 * time.Second
	settleWait = 30 * time.Second
)

func fixedWorkspace(t Tools, log zerolog.Logger) *workspace {
	w := &workspace{log: log, ready: make(chan struct{}), tools: t}
	w.once.Do(func() { close(w.ready) })
	return w
}

// openWorkspace opens the tools with open: at once when the workspace is
// fixed by configuration, after notifications/initialized when it is the
// client's first root.
func openWorkspace(open Opener, fromRoots bool, log zerolog.Logger, opened func(Tools) error) *workspace {
	w := &workspace{log: log, open: open, fromRoots: fromRoots, opened: opened, ready: make(chan struct{})}
	if !fromRoots {
		go w.settle(nil)
	}
	return w
}

// get waits for the tools. Once they are open it returns at once, with no
// timer to arm: it runs on every call.
func (w *workspace) get(ctx context.Context) (Tools, error) {
	select {
	case <-w.ready:
		return w.outcome()
	default:
	}
	t := time.NewTimer(settleWait)
	defer t.Stop()
	select {
	case <-w.ready:
	case <-ctx.Done():
		return Tools{}, ctx.Err()
	case <-t.C:
		return Tools{}, internalError("the workspace is not open yet: the client must send notifications/initialized " +
			"after the initialize reply (and answer roots/list if it declared roots)")
	}
	return w.outcome()
}

// outcome is the settled opening's tools or error.
func (w *workspace) outcome() (Tools, error) {
	if w.err != nil {
		return Tools{}, internalError(fmt.Sprintf("the tools could not be started: %v", w.err))
	}
	return w.tools, nil
}

// settle opens the tools, once: in the client's first acceptable root (or
// the default when it lists none) when the workspace comes from the roots,
// else in the configured one (ss is then nil). Roots that are all refused
// fail the tools with the refusals.
func (w *workspace) settle(ss *mcp.ServerSession) {
	w.once.Do(func() {
		defer close(w.ready)
		root := ""
		if w.fromRoots && hasRoots(ss) {
			var refused, err error
			root, refused, err = w.firstRoot(ss)
			switch {
			case err != nil:
				w.log.Warn().Err(err).Msg("roots/list failed; using the default workspace")
			case root == "" && refused != nil:
				w.err = refused
				w.log.Error().Err(refused).Msg("no root the client sent can be the workspace; tools/list and tools/call will fail")
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), settleWait)
		defer cancel()
		w.tools, w.err = w.open(ctx, root)
		if w.err == nil {
			w.err = w.opened(w.tools)
		}
		if w.err != nil {
			w.log.Error().Err(w.err).Str("root", root).Msg("the workspace could not be opened; tools/list and tools/call will fail")
			return
		}
		w.log.Info().Str("workspace", w.tools.Workspace).Bool("fromRoots", root != "").Msg("MCP workspace open")
	})
}

// recheck follows notifications/roots/list_changed. A first root that is no
// longer the workspace refuses every later tools/call until it is back;
// the refusal is logged and sent as an MCP log message.
func (w *workspace) recheck(ss *mcp.ServerSession) {
	if !w.fromRoots || !hasRoots(ss) {
		w.log.Debug().Msg("roots changed; ignored: the workspace was fixed by --cwd or STEERABLE_WORKSPACE, or is not the roots'")
		return
	}
	<-w.ready
	if w.err != nil {
		return
	}
	w.recheckMu.Lock()
	defer w.recheckMu.Unlock()
	root, _, err := w.firstRoot(ss)
	if err != nil {
		w.log.Warn().Err(err).Msg("roots/list after roots/list_changed failed; the workspace stays")
		return
	}
	if resolve(root) == w.tools.Workspace {
		if w.moved.Swap(nil) != nil {
			w.log.Info().Str("workspace", w.tools.Workspace).Msg("the client's first root is the workspace again; tool calls resume")
		}
		return
	}
	to := root
	if to == "" {
		to = "(no root)"
	}
	msg := fmt.Sprintf("refused: the client's first root moved from %s to %s, but this server's read state and sandbox "+
		"belong to %s. Restart the MCP server (reconnect it in the client) to work in the new folder, move the root back, "+
		"or pin a workspace with --cwd", w.tools.Workspace, to, w.tools.Workspace)
	w.moved.Store(&msg)
	w.log.Error().Str("workspace", w.tools.Workspace).Str("root", to).Msg("roots moved the workspace; tool calls are refused")
	logToClient(ss, "error", msg)
}

// movedMessage is the refusal while the roots point elsewhere, else "".
func (w *workspace) movedMessage() string {
	if m := w.moved.Load(); m != nil {
		return *m
	}
	return ""
}

// firstRoot lists the client's roots and returns the directory of the
// first file:// one that check accepts ("" when there is none). Each
// refused root is logged and sent to the client as an MCP log message;
// refused joins the refusals.
func (w *workspace) firstRoot(ss *mcp.ServerSession) (root string, refused, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), rootsWait)
	defer cancel()
	uris, err := listRoots(ctx, ss)
	if err != nil {
		return "", nil, fmt.Errorf("roots/list: %w", err)
	}
	var refusals []error
	for _, uri := range uris {
		dir, err := rootPath(uri)
		if err != nil {
			continue
		}
		if w.check == nil {
			return dir, nil, nil
		}
		if err := w.check(dir); err != nil {
			refusals = append(refusals, err)
			w.log.Warn().Err(err).Str("root", dir).Msg("root refused as the workspace")
			logToClient(ss, "warning", err.Error())
			continue
		}
		return dir, errors.Join(refusals...), nil
	}
	return "", errors.Join(refusals...), nil
}

// rootPath is the local directory of a file:// URI (RFC 8089): an empty or
// "localhost" authority, a percent-decoded absolute path.
func rootPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return "", errors.New("not a local file:// URI")
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x → C:/x
	}
	p = filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
		return "", errors.New("not an absolute path")
	}
	return p, nil
}

// resolve is dir as the workspace is recorded: symlinks resolved.
func resolve(dir string) string {
	if dir == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}
