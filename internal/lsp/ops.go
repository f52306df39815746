package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/sourcegraph/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"steerable.dev/sidecar/internal/clip"
)

// Request is one lsp tool call.
type Request struct {
	Operation string `json:"operation"`
	Path      string `json:"path,omitempty"`   // as the model sent it; absolute once the tool resolved it
	Line      int    `json:"line,omitempty"`   // 1-based
	Symbol    string `json:"symbol,omitempty"` // the identifier on Line
	Query     string `json:"query,omitempty"`  // workspaceSymbols
}

// Operations the lsp tool offers.
var Operations = []string{"definition", "references", "hover", "documentSymbols", "workspaceSymbols",
	"diagnostics", "implementation", "callHierarchy"}

// Location is one result: a file, a 1-based line and column, and the
// line's text.
type Location struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Excerpt string `json:"excerpt,omitempty"`
	Name    string `json:"name,omitempty"`
	Kind    string `json:"kind,omitempty"`
	// Container is the enclosing symbol (documentSymbols, workspaceSymbols)
	// or, in callHierarchy, "incoming" or "outgoing".
	Container string `json:"container,omitempty"`
}

// Result is what an operation found.
type Result struct {
	Message   string         `json:"-"`
	Data      map[string]any `json:"-"`
	Followup  bool           `json:"-"` // a failure the model can fix
	Truncated bool           `json:"-"`
}

// maxResults bounds every list the tool returns.
const maxResults = 100

// UserError is a failure the model can fix by changing its arguments.
type UserError struct{ msg string }

func (e *UserError) Error() string { return e.msg }

func userErr(format string, args ...any) error { return &UserError{fmt.Sprintf(format, args...)} }

// Run performs one lsp tool operation. A server that dies under the call
// is restarted and asked once more.
func (m *Manager) Run(ctx context.Context, r Request) (Result, error) {
	res, err := m.run(ctx, r)
	if lostServer(err) && ctx.Err() == nil {
		res, err = m.run(ctx, r)
	}
	return res, err
}

func (m *Manager) run(ctx context.Context, r Request) (Result, error) {
	if r.Operation == "workspaceSymbols" {
		return m.workspaceSymbols(ctx, r)
	}
	if r.Operation == "diagnostics" && r.Path == "" {
		return m.allDiagnostics(), nil
	}
	if r.Path == "" {
		return Result{}, userErr("%s needs path (and line and symbol); pass the file to ask about", r.Operation)
	}
	s := m.serverFor(r.Path)
	if s == nil {
		return Result{}, userErr("no language server serves %s (configured: %s); see STEERABLE_LSP_CONFIG", m.display(r.Path), strings.Join(m.Names(), ", "))
	}
	text, err := readText(r.Path, m.opts.MaxFileBytes)
	if err != nil {
		return Result{}, userErr("%v", err)
	}
	ctx, cancel := m.budget(ctx, s)
	defer cancel()
	cl, release, err := s.acquire(ctx)
	if err != nil {
		return Result{}, err
	}
	defer release()
	t, _ := cl.prepare(ctx, r.Path, text)
	return m.onDocument(ctx, s, cl, r, t, splitLines(text))
}

// onDocument answers an operation on the document t the server has open.
func (m *Manager) onDocument(ctx context.Context, s *server, cl *client, r Request, t waitTarget, lines []string) (Result, error) {
	doc := protocol.TextDocumentIdentifier{URI: t.uri}
	switch r.Operation {
	case "diagnostics":
		diags, final := cl.diags.waitFor(ctx, t.uri, t.version, t.mark, t.settle)
		items := view(m.display(r.Path), lines, diags)
		data := map[string]any{"items": items}
		if !final {
			data["pending"] = true
		}
		return Result{Message: fmt.Sprintf("%d diagnostics in %s.", len(items), m.display(r.Path)), Data: data}, nil
	case "documentSymbols":
		var raw json.RawMessage
		if err := cl.call(ctx, "textDocument/documentSymbol", protocol.DocumentSymbolParams{TextDocument: doc}, &raw); err != nil {
			return Result{}, m.requestErr(s, cl, r.Operation, err)
		}
		return m.listResult(r.Operation, m.documentSymbols(r.Path, lines, raw)), nil
	}
	pos, err := position(lines, r.Line, r.Symbol)
	if err != nil {
		return Result{}, err
	}
	return m.atPosition(ctx, s, cl, r.Operation, protocol.TextDocumentPositionParams{TextDocument: doc, Position: pos})
}

// atPosition answers an operation on the symbol at tdp.
func (m *Manager) atPosition(ctx context.Context, s *server, cl *client, op string, tdp protocol.TextDocumentPositionParams) (Result, error) {
	var raw json.RawMessage
	var err error
	switch op {
	case "definition":
		err = cl.call(ctx, "textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: tdp}, &raw)
	case "implementation":
		err = cl.call(ctx, "textDocument/implementation", protocol.ImplementationParams{TextDocumentPositionParams: tdp}, &raw)
	case "references":
		err = cl.call(ctx, "textDocument/references", protocol.ReferenceParams{TextDocumentPositionParams: tdp,
			Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &raw)
	case "hover":
		err = cl.call(ctx, "textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: tdp}, &raw)
		if err == nil {
			return hoverResult(raw), nil
		}
	case "callHierarchy":
		locs, cerr := m.callHierarchy(ctx, cl, tdp)
		if cerr != nil {
			return Result{}, m.requestErr(s, cl, op, cerr)
		}
		return m.listResult(op, locs), nil
	default:
		return Result{}, userErr("unknown operation %q; use one of %s", op, strings.Join(Operations, ", "))
	}
	if err != nil {
		return Result{}, m.requestErr(s, cl, op, err)
	}
	return m.listResult(op, m.locations(raw)), nil
}

// budget is a call's deadline: the request timeout, plus the start
// timeout when the server is not running yet.
func (m *Manager) budget(ctx context.Context, s *server) (context.Context, context.CancelFunc) {
	d := m.opts.RequestTimeout
	s.mu.Lock()
	if s.cl == nil {
		d += m.opts.StartTimeout
	}
	s.mu.Unlock()
	return context.WithTimeout(ctx, d)
}

func (m *Manager) requestErr(s *server, cl *client, op string, err error) error {
	if lostServer(err) {
		s.invalidate(cl)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("language server %s did not answer %s within %d ms (STEERABLE_LSP_REQUEST_TIMEOUT_MS)", s.spec.Name, op, m.opts.RequestTimeout.Milliseconds())
	}
	return fmt.Errorf("language server %s: %s failed: %w", s.spec.Name, op, err)
}

// Schema is the lsp tool's parameters: a Request as the model sends it
// (path relative to the workspace).
const Schema = `{"type":"object","additionalProperties":false,"required":["operation"],"properties":{` +
	`"operation":{"type":"string","enum":["definition","references","hover","documentSymbols","workspaceSymbols","diagnostics","implementation","callHierarchy"]},` +
	`"path":{"type":"string","description":"the file, relative to the workspace; every operation but workspaceSymbols (optional there) and diagnostics (optional: without it, all known)"},` +
	`"line":{"type":"integer","minimum":1,"description":"1-based line the symbol is on (definition, references, hover, implementation, callHierarchy)"},` +
	`"symbol":{"type":"string","minLength":1,"description":"the identifier on that line to ask about; its first whole-word occurrence is used"},` +
	`"query":{"type":"string","description":"workspaceSymbols: a symbol name or part of one"}}}`

// lostServer reports whether err says the server is gone: its connection
// closed, or a write to its stdin found the pipe broken before the reader
// saw its end (a crash between two calls).
func lostServer(err error) bool {
	return errors.Is(err, jsonrpc2.ErrClosed) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed)
}

// position finds the LSP position of symbol on 1-based line.
func position(lines []string, line int, symbol string) (protocol.Position, error) {
	if line < 1 || line > len(lines) {
		return protocol.Position{}, userErr("line %d is outside the file (1..%d); pass the line the symbol is on", line, len(lines))
	}
	l := lines[line-1]
	off, err := findSymbol(l, symbol)
	if err != nil {
		return protocol.Position{}, userErr("line %d: %v", line, err)
	}
	return protocol.Position{Line: uint32(line - 1), Character: uint32(utf16Column(l, off))}, nil
}

// locations decodes Location | Location[] | LocationLink[] | null.
func (m *Manager) locations(raw json.RawMessage) []Location {
	var many []struct {
		protocol.Location
		TargetURI            protocol.DocumentURI `json:"targetUri"`
		TargetSelectionRange *protocol.Range      `json:"targetSelectionRange"`
	}
	if len(raw) > 0 && raw[0] == '{' {
		raw = append(append([]byte{'['}, raw...), ']')
	}
	_ = json.Unmarshal(raw, &many)
	lc := newLineCache()
	var out []Location
	for _, l := range many {
		u, rng := l.URI, l.Range
		if l.TargetURI != "" && l.TargetSelectionRange != nil {
			u, rng = l.TargetURI, *l.TargetSelectionRange
		}
		out = append(out, m.location(lc, u, rng.Start))
	}
	return out
}

func (m *Manager) location(lc *lineCache, u protocol.DocumentURI, p protocol.Position) Location {
	abs := uri.URI(u).Filename()
	lines := lc.get(abs)
	col := int(p.Character) + 1
	if int(p.Line) < len(lines) {
		col = byteColumn(lines[p.Line], int(p.Character)) + 1
	}
	return Location{Path: m.display(abs), Line: int(p.Line) + 1, Column: col, Excerpt: excerpt(lines, int(p.Line))}
}

// lineCache reads each result file once per call.
type lineCache map[string][]string

func newLineCache() *lineCache { c := lineCache{}; return &c }

func (c *lineCache) get(abs string) []string {
	if l, ok := (*c)[abs]; ok {
		return l
	}
	text, err := readText(abs, 4<<20)
	var lines []string
	if err == nil {
		lines = splitLines(text)
	}
	(*c)[abs] = lines
	return lines
}

// listResult sorts (workspace files first, then path and line), dedups
// and bounds a list of locations.
func (m *Manager) listResult(op string, locs []Location) Result {
	if op != "documentSymbols" {
		sort.SliceStable(locs, func(i, j int) bool {
			a, b := locs[i], locs[j]
			if ai, bi := filepath.IsAbs(a.Path), filepath.IsAbs(b.Path); ai != bi {
				return !ai
			}
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Column < b.Column
		})
	}
	out := locs[:0:0]
	seen := map[Location]bool{}
	for _, l := range locs {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	total := len(out)
	data := map[string]any{"results": out, "total": total}
	if total > maxResults {
		data["results"], data["truncated"] = out[:maxResults], true
	}
	if out == nil {
		data["results"] = []Location{}
	}
	msg := fmt.Sprintf("%s: %d result(s).", op, total)
	if total == 0 {
		msg = fmt.Sprintf("%s: no results.", op)
	}
	return Result{Message: msg, Data: data}
}

// documentSymbols flattens DocumentSymbol[] (with containers) or
// SymbolInformation[], in file order.
func (m *Manager) documentSymbols(abs string, lines []string, raw json.RawMessage) []Location {
	var probe []map[string]json.RawMessage
	_ = json.Unmarshal(raw, &probe)
	var tree []protocol.DocumentSymbol
	var out []Location
	if len(probe) > 0 && probe[0]["location"] == nil && json.Unmarshal(raw, &tree) == nil {
		var walk func(ds []protocol.DocumentSymbol, container string)
		walk = func(ds []protocol.DocumentSymbol, container string) {
			for _, d := range ds {
				p := d.SelectionRange.Start
				l := m.location(&lineCache{abs: lines}, protocol.DocumentURI(uri.File(abs)), p)
				l.Name, l.Kind, l.Container = d.Name, kindName(d.Kind), container
				out = append(out, l)
				walk(d.Children, d.Name)
			}
		}
		walk(tree, "")
	} else {
		out = m.symbolInfos(raw)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

func (m *Manager) symbolInfos(raw json.RawMessage) []Location {
	var infos []protocol.SymbolInformation
	_ = json.Unmarshal(raw, &infos)
	lc := newLineCache()
	var out []Location
	for _, si := range infos {
		l := m.location(lc, si.Location.URI, si.Location.Range.Start)
		l.Name, l.Kind, l.Container = si.Name, kindName(si.Kind), si.ContainerName
		out = append(out, l)
	}
	return out
}

// workspaceSymbols asks the server of path, or every server whose root
// marker is in the workspace (or that is running), for symbols matching
// query.
func (m *Manager) workspaceSymbols(ctx context.Context, r Request) (Result, error) {
	if strings.TrimSpace(r.Query) == "" {
		return Result{}, userErr("workspaceSymbols needs query: a symbol name or part of one")
	}
	var targets []*server
	if r.Path != "" {
		if s := m.serverFor(r.Path); s != nil {
			targets = append(targets, s)
		}
	} else {
		for _, s := range m.servers {
			if s.hasRootMarker(m.opts.Workspace) || s.running() {
				targets = append(targets, s)
			}
		}
	}
	if len(targets) == 0 {
		return Result{}, userErr("no language server applies to this workspace (none of their root markers is in it); pass path, a file of the language to search")
	}
	var all []Location
	var errs []string
	for _, s := range targets {
		sctx, cancel := m.budget(ctx, s)
		cl, release, err := s.acquire(sctx)
		if err != nil {
			cancel()
			errs = append(errs, err.Error())
			continue
		}
		var raw json.RawMessage
		err = cl.call(sctx, "workspace/symbol", protocol.WorkspaceSymbolParams{Query: r.Query}, &raw)
		release()
		cancel()
		if err != nil {
			errs = append(errs, m.requestErr(s, cl, "workspaceSymbols", err).Error())
			continue
		}
		all = append(all, m.symbolInfos(raw)...)
	}
	if len(all) == 0 && len(errs) > 0 {
		return Result{}, errors.New(strings.Join(errs, "; "))
	}
	res := m.listResult("workspaceSymbols", all)
	if len(errs) > 0 {
		res.Data["errors"] = errs
	}
	return res, nil
}

func (s *server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cl != nil
}

func (s *server) hasRootMarker(ws string) bool {
	for _, mk := range s.spec.RootMarkers {
		if ok, _ := filepathExists(filepath.Join(ws, mk)); ok {
			return true
		}
	}
	return false
}

// callHierarchy returns the callers (Container "incoming") and callees
// ("outgoing") of the function at tdp.
func (m *Manager) callHierarchy(ctx context.Context, cl *client, tdp protocol.TextDocumentPositionParams) ([]Location, error) {
	var items []protocol.CallHierarchyItem
	if err := cl.call(ctx, "textDocument/prepareCallHierarchy", protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: tdp}, &items); err != nil {
		return nil, err
	}
	lc := newLineCache()
	var out []Location
	for _, it := range items {
		var in []protocol.CallHierarchyIncomingCall
		if err := cl.call(ctx, "callHierarchy/incomingCalls", protocol.CallHierarchyIncomingCallsParams{Item: it}, &in); err != nil {
			return nil, err
		}
		for _, c := range in {
			l := m.location(lc, c.From.URI, c.From.SelectionRange.Start)
			l.Name, l.Kind, l.Container = c.From.Name, kindName(c.From.Kind), "incoming"
			out = append(out, l)
		}
		var outc []protocol.CallHierarchyOutgoingCall
		if err := cl.call(ctx, "callHierarchy/outgoingCalls", protocol.CallHierarchyOutgoingCallsParams{Item: it}, &outc); err != nil {
			return nil, err
		}
		for _, c := range outc {
			l := m.location(lc, c.To.URI, c.To.SelectionRange.Start)
			l.Name, l.Kind, l.Container = c.To.Name, kindName(c.To.Kind), "outgoing"
			out = append(out, l)
		}
	}
	return out, nil
}

// hoverResult flattens MarkupContent | MarkedString | MarkedString[].
func hoverResult(raw json.RawMessage) Result {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	_ = json.Unmarshal(raw, &h)
	text := markedText(h.Contents)
	if strings.TrimSpace(text) == "" {
		return Result{Message: "hover: nothing at that position.", Data: map[string]any{"text": ""}}
	}
	return Result{Message: "hover: " + firstLine(text), Data: map[string]any{"text": clip.Short(text, 4000)}}
}

func markedText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Value string `json:"value"`
	}
	if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &mc) == nil {
		return mc.Value
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			out = append(out, markedText(p))
		}
		return strings.Join(out, "\n\n")
	}
	return ""
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "```") {
			return clip.Short(l, 200)
		}
	}
	return ""
}

// allDiagnostics is every diagnostic the running servers hold.
func (m *Manager) allDiagnostics() Result {
	var items []Diagnostic
	for _, s := range m.servers {
		s.mu.Lock()
		cl := s.cl
		s.mu.Unlock()
		if cl == nil {
			continue
		}
		lc := newLineCache()
		for u, diags := range cl.diags.all() {
			abs := uri.URI(u).Filename()
			items = append(items, view(m.display(abs), lc.get(abs), diags)...)
		}
	}
	sortDiagnostics(items)
	data := map[string]any{"items": items, "total": len(items)}
	if len(items) > maxResults {
		data["items"], data["truncated"] = items[:maxResults], true
	}
	if items == nil {
		data["items"] = []Diagnostic{}
	}
	return Result{Message: fmt.Sprintf("%d diagnostics in the files the language servers have seen (pass path for one file's, fresh).", len(items)), Data: data}
}

var kindNames = map[protocol.SymbolKind]string{
	1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method", 7: "property", 8: "field",
	9: "constructor", 10: "enum", 11: "interface", 12: "function", 13: "variable", 14: "constant", 15: "string",
	16: "number", 17: "boolean", 18: "array", 19: "object", 20: "key", 21: "null", 22: "enumMember", 23: "struct",
	24: "event", 25: "operator", 26: "typeParameter",
}

func kindName(k protocol.SymbolKind) string { return kindNames[k] }
