package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// client is one initialised connection to a running server: the
// documents it has opened and the diagnostics it published.
type client struct {
	spec  Spec
	root  string
	conn  *jsonrpc2.Conn
	diags *diagStore
	caps  json.RawMessage // the server's capabilities, as sent

	mu   sync.Mutex
	docs map[protocol.DocumentURI]*document
	tick uint64
}

// document is what the server was last told a file holds.
type document struct {
	version int32
	text    string
	used    uint64
}

// maxOpenDocuments bounds the documents kept open on a server; the least
// recently used is closed first.
const maxOpenDocuments = 200

// pipe joins a process's stdout and stdin into the stream jsonrpc2 reads.
type pipe struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipe) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipe) Close() error                { return errors.Join(p.ReadCloser.Close(), p.w.Close()) }

// quietLogger keeps jsonrpc2's own complaints off the sidecar's stderr,
// which carries structured log lines only.
var quietLogger = log.New(io.Discard, "", 0)

func newClient(spec Spec, root string, stdout io.ReadCloser, stdin io.WriteCloser) *client {
	c := &client{spec: spec, root: root, diags: newDiagStore(), docs: map[protocol.DocumentURI]*document{}}
	stream := jsonrpc2.NewBufferedStream(pipe{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{})
	c.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(c.handle), jsonrpc2.SetLogger(quietLogger))
	return c
}

// handle answers the server's requests and consumes its notifications.
// jsonrpc2 calls it in its read loop, one message at a time, so nothing
// queues behind it: every branch returns at once.
func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p protocol.PublishDiagnosticsParams
		if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
			c.diags.publish(p)
		}
		return nil, nil
	case "workspace/configuration":
		var p protocol.ConfigurationParams
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = settingsSection(c.spec.Settings, it.Section)
		}
		return out, nil
	case "workspace/workspaceFolders":
		return c.folders(), nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		return nil, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "this client does not apply server edits"}, nil
	}
	if req.Notif {
		return nil, nil // $/progress, window/logMessage, telemetry/event: not needed
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported by this client: " + req.Method}
}

// settingsSection looks a dotted section up in settings (null when absent).
func settingsSection(settings json.RawMessage, section string) any {
	var cur any
	if len(settings) == 0 || json.Unmarshal(settings, &cur) != nil {
		return nil
	}
	if section == "" {
		return cur
	}
	for _, k := range strings.Split(section, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[k]; !ok {
			return nil
		}
	}
	return cur
}

func (c *client) folders() []protocol.WorkspaceFolder {
	return []protocol.WorkspaceFolder{{URI: string(uri.File(c.root)), Name: filepath.Base(c.root)}}
}

// initialize runs the LSP handshake with the workspace as the root.
func (c *client) initialize(ctx context.Context, version string) error {
	params := protocol.InitializeParams{
		ClientInfo: &protocol.ClientInfo{Name: "steerable-sidecar", Version: version},
		//lint:ignore SA1019 rootUri and rootPath are for servers that predate workspaceFolders (LSP 3.6)
		RootURI: uri.File(c.root), RootPath: c.root,
		WorkspaceFolders: c.folders(),
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{Configuration: true, WorkspaceFolders: true,
				Symbol: &protocol.WorkspaceSymbolClientCapabilities{}},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization:    &protocol.TextDocumentSyncClientCapabilities{},
				Hover:              &protocol.HoverTextDocumentClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.PlainText, protocol.Markdown}},
				Definition:         &protocol.DefinitionTextDocumentClientCapabilities{},
				Implementation:     &protocol.ImplementationTextDocumentClientCapabilities{},
				References:         &protocol.ReferencesTextDocumentClientCapabilities{},
				DocumentSymbol:     &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: true},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
				CallHierarchy:      &protocol.CallHierarchyClientCapabilities{},
			},
			Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true},
		},
	}
	if len(c.spec.InitializationOptions) > 0 {
		params.InitializationOptions = c.spec.InitializationOptions
	}
	var res struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := c.conn.Call(ctx, "initialize", params, &res); err != nil {
		return err
	}
	c.caps = res.Capabilities
	return c.conn.Notify(ctx, "initialized", struct{}{})
}

// call is one request with its result decoded into out.
func (c *client) call(ctx context.Context, method string, params, out any) error {
	return c.conn.Call(ctx, method, params, out)
}

// sync tells the server what abs holds now: didOpen the first time, a
// full-text didChange when it differs from what was sent. It returns the
// document's version and whether anything was sent.
func (c *client) sync(ctx context.Context, abs, text string) (protocol.DocumentURI, int32, bool, error) {
	u := uri.File(abs)
	c.mu.Lock()
	c.tick++
	d, ok := c.docs[u]
	if ok && d.text == text {
		d.used = c.tick
		v := d.version
		c.mu.Unlock()
		return u, v, false, nil
	}
	var closing []protocol.DocumentURI
	if !ok {
		d = &document{}
		c.docs[u] = d
		closing = c.evict(u)
	}
	d.version++
	d.text, d.used = text, c.tick
	v := d.version
	c.mu.Unlock()
	for _, old := range closing {
		_ = c.conn.Notify(ctx, "textDocument/didClose", protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: old}})
	}
	var err error
	if !ok {
		err = c.conn.Notify(ctx, "textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: u, LanguageID: protocol.LanguageIdentifier(languageID(c.spec, abs)), Version: v, Text: text}})
	} else {
		// A whole-document change is {"text": ...} without a range;
		// protocol.TextDocumentContentChangeEvent always sends its range
		// (0:0-0:0, an insertion at the top), so the event is spelled here.
		err = c.conn.Notify(ctx, "textDocument/didChange", struct {
			TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
			ContentChanges []wholeText                              `json:"contentChanges"`
		}{protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			[]wholeText{{Text: text}}})
	}
	return u, v, true, err
}

// evict drops the least recently used documents past the bound (mu held).
func (c *client) evict(keep protocol.DocumentURI) []protocol.DocumentURI {
	var out []protocol.DocumentURI
	for len(c.docs) > maxOpenDocuments {
		var oldest protocol.DocumentURI
		min := ^uint64(0)
		for u, d := range c.docs {
			if u != keep && d.used < min {
				oldest, min = u, d.used
			}
		}
		delete(c.docs, oldest)
		out = append(out, oldest)
	}
	return out
}

// forget closes abs on the server (the file was deleted).
func (c *client) forget(ctx context.Context, abs string) {
	u := uri.File(abs)
	c.mu.Lock()
	_, ok := c.docs[u]
	delete(c.docs, u)
	c.mu.Unlock()
	if ok {
		_ = c.conn.Notify(ctx, "textDocument/didClose", protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	}
}

// shutdown asks the server to end cleanly; the supervisor kills it after.
func (c *client) shutdown(ctx context.Context) {
	if c.conn.Call(ctx, "shutdown", nil, nil) == nil {
		_ = c.conn.Notify(ctx, "exit", nil)
	}
	c.conn.Close()
}

// readText reads a file for the server, bounded.
func readText(abs string, max int64) (string, error) {
	f, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) > max {
		return "", fmt.Errorf("%s is larger than %d bytes; language servers are not given files that large", abs, max)
	}
	return string(b), nil
}

// waitTarget is what AfterWrite waits for: a publish for uri newer than
// mark, for version.
type waitTarget struct {
	uri     protocol.DocumentURI
	version int32
	mark    uint64
	settle  time.Duration
}

// diagEntry is a diagnostic as it was before a change.
type diagEntry = protocol.Diagnostic

// prepare sends abs's new text and returns what to wait for and the
// diagnostics the server held for it before.
func (c *client) prepare(ctx context.Context, abs, text string) (waitTarget, []diagEntry) {
	u := uri.File(abs)
	before, _, _ := c.diags.get(u)
	mark := c.diags.mark()
	_, v, sent, _ := c.sync(ctx, abs, text)
	if !sent {
		mark = 0 // nothing changed: what it published last is current
	}
	return waitTarget{uri: u, version: v, mark: mark, settle: time.Duration(c.spec.SettleMs) * time.Millisecond}, before.diags
}

// wholeText is a content change that replaces the whole document.
type wholeText struct {
	Text string `json:"text"`
}
