package lsp

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"
	"go.lsp.dev/protocol"
)

// fakeLauncher runs an in-process language server per Launch: it answers
// initialize (unless mute), publishes one error per line containing "BAD"
// with the document's version, and answers definition with line 1.
type fakeLauncher struct {
	mu       sync.Mutex
	mute     bool
	launched []*fakeProcess
}

type fakeProcess struct {
	stdinR, stdoutR *os.File
	stdinW, stdoutW *os.File
	stderrR         io.ReadCloser
	done            chan struct{}
	once            sync.Once
	conn            *jsonrpc2.Conn
}

func (l *fakeLauncher) Launch(argv []string, dir string, env []string, writable []string) (Process, error) {
	p := &fakeProcess{done: make(chan struct{})}
	var err error
	if p.stdinR, p.stdinW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.stdoutR, p.stdoutW, err = os.Pipe(); err != nil {
		return nil, err
	}
	p.stderrR = io.NopCloser(strings.NewReader(""))
	l.mu.Lock()
	mute := l.mute
	l.launched = append(l.launched, p)
	l.mu.Unlock()
	stream := jsonrpc2.NewBufferedStream(pipe{p.stdinR, p.stdoutW}, jsonrpc2.VSCodeObjectCodec{})
	p.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(
		func(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			switch req.Method {
			case "initialize":
				if mute {
					select {} // never answers
				}
				return map[string]any{"capabilities": map[string]any{}}, nil
			case "textDocument/didOpen":
				var prm protocol.DidOpenTextDocumentParams
				_ = json.Unmarshal(*req.Params, &prm)
				publish(ctx, c, prm.TextDocument.URI, prm.TextDocument.Version, prm.TextDocument.Text)
			case "textDocument/didChange":
				var prm struct {
					TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
					ContentChanges []wholeText                              `json:"contentChanges"`
				}
				_ = json.Unmarshal(*req.Params, &prm)
				publish(ctx, c, prm.TextDocument.URI, prm.TextDocument.Version, prm.ContentChanges[0].Text)
			case "textDocument/definition":
				var prm protocol.DefinitionParams
				_ = json.Unmarshal(*req.Params, &prm)
				return []protocol.Location{{URI: prm.TextDocument.URI}}, nil
			case "shutdown":
				return nil, nil
			}
			return nil, nil
		})), jsonrpc2.SetLogger(quietLogger))
	go func() { <-p.conn.DisconnectNotify(); p.kill() }()
	return p, nil
}

func publish(ctx context.Context, c *jsonrpc2.Conn, u protocol.DocumentURI, v int32, text string) {
	diags := []protocol.Diagnostic{}
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "BAD") {
			diags = append(diags, protocol.Diagnostic{Severity: 1, Message: "bad line", Source: "fake",
				Range: protocol.Range{Start: protocol.Position{Line: uint32(i)}}})
		}
	}
	_ = c.Notify(ctx, "textDocument/publishDiagnostics", protocol.PublishDiagnosticsParams{URI: u, Version: uint32(v), Diagnostics: diags})
}

func (p *fakeProcess) kill() {
	p.once.Do(func() {
		p.conn.Close()
		p.stdoutW.Close()
		p.stdinR.Close()
		close(p.done)
	})
}

func (p *fakeProcess) Stdin() io.WriteCloser { return p.stdinW }
func (p *fakeProcess) Stdout() io.ReadCloser { return p.stdoutR }
func (p *fakeProcess) Stderr() io.ReadCloser { return p.stderrR }
func (p *fakeProcess) Done() <-chan struct{} { return p.done }
func (p *fakeProcess) Exit() string          { return "killed by SIGKILL" }
func (p *fakeProcess) Stop(time.Duration)    { p.kill() }

func newTestManager(t *testing.T, l *fakeLauncher, idle time.Duration) (*Manager, string) {
	t.Helper()
	ws := t.TempDir()
	m := New([]Spec{{Name: "fake", Command: "fake", FilePatterns: []string{"**/*.fk"}}}, nil, Options{
		Workspace: ws, Launcher: l, CacheRoot: t.TempDir(), TempRoot: t.TempDir(),
		StartTimeout: 200 * time.Millisecond, RequestTimeout: 10 * time.Second, IdleTimeout: idle,
		DiagnosticsWait: 10 * time.Second, StopGrace: time.Second,
	}, zerolog.Nop())
	t.Cleanup(func() { m.Close(0) })
	return m, ws
}

func TestAfterWriteCountsNewAndClears(t *testing.T) {
	m, ws := newTestManager(t, &fakeLauncher{}, 0)
	f := filepath.Join(ws, "a.fk")
	write := func(text string) *Report {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return m.AfterWrite(context.Background(), []string{f})
	}
	if r := write("ok\n"); r == nil || len(r.Items) != 0 || r.New != 0 || r.Pending {
		t.Fatalf("clean file: %+v", r)
	}
	r := write("ok\nBAD\n")
	if len(r.Items) != 1 || r.New != 1 || r.Items[0].Line != 2 || r.Items[0].File != "a.fk" {
		t.Fatalf("one error: %+v", r)
	}
	if r := write("BAD\nok\n"); len(r.Items) != 1 || r.New != 0 {
		t.Fatalf("the error moved, nothing new: %+v", r)
	}
	if r := write("ok\n"); len(r.Items) != 0 {
		t.Fatalf("fixed: %+v", r)
	}
	if r := m.AfterWrite(context.Background(), []string{filepath.Join(ws, "x.txt")}); r != nil {
		t.Fatalf("a file no server covers: %+v", r)
	}
}

func TestRestartAfterCrash(t *testing.T) {
	l := &fakeLauncher{}
	m, ws := newTestManager(t, l, 0)
	f := filepath.Join(ws, "a.fk")
	os.WriteFile(f, []byte("x\n"), 0o644)
	req := Request{Operation: "definition", Path: f, Line: 1, Symbol: "x"}
	if _, err := m.Run(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	l.launched[0].kill()
	res, err := m.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("after a crash: %v", err)
	}
	if res.Data["total"] != 1 || len(l.launched) != 2 {
		t.Fatalf("result %+v after %d launches", res.Data, len(l.launched))
	}
	if c := m.Check(); c.Status != "warn" || !strings.Contains(c.Message, "restarted after 1 crash(es)") {
		t.Errorf("check = %+v", c)
	}
}

func TestIdleStop(t *testing.T) {
	l := &fakeLauncher{}
	m, ws := newTestManager(t, l, 20*time.Millisecond)
	f := filepath.Join(ws, "a.fk")
	os.WriteFile(f, []byte("x\n"), 0o644)
	if _, err := m.Run(context.Background(), Request{Operation: "definition", Path: f, Line: 1, Symbol: "x"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.launched[0].Done():
	case <-time.After(10 * time.Second):
		t.Fatal("an idle server was not stopped")
	}
	if _, err := m.Run(context.Background(), Request{Operation: "definition", Path: f, Line: 1, Symbol: "x"}); err != nil {
		t.Fatalf("after the idle stop: %v", err)
	}
}

func TestInitializeTimeout(t *testing.T) {
	l := &fakeLauncher{mute: true}
	m, ws := newTestManager(t, l, 0)
	f := filepath.Join(ws, "a.fk")
	os.WriteFile(f, []byte("x\n"), 0o644)
	_, err := m.Run(context.Background(), Request{Operation: "definition", Path: f, Line: 1, Symbol: "x"})
	if err == nil || !strings.Contains(err.Error(), "did not answer initialize within 200 ms (STEERABLE_LSP_START_TIMEOUT_MS)") {
		t.Fatalf("err = %v", err)
	}
	<-l.launched[0].Done() // killed
	if c := m.Check(); c.Status != "error" {
		t.Errorf("check = %+v", c)
	}
}

// exitingLauncher starts a server that exits with status 3 without
// reading a byte: its stdin is closed at once, so the initialize write
// finds the pipe broken, and the process is reaped a moment later.
type exitingLauncher struct{}

type exitedProcess struct {
	stdinW, stdoutR *os.File
	done            chan struct{}
}

func (exitingLauncher) Launch([]string, string, []string, []string) (Process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	inR.Close()
	p := &exitedProcess{stdinW: inW, stdoutR: outR, done: make(chan struct{})}
	go func() {
		time.Sleep(50 * time.Millisecond) // reaped after the write failed
		outW.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *exitedProcess) Stdin() io.WriteCloser { return p.stdinW }
func (p *exitedProcess) Stdout() io.ReadCloser { return p.stdoutR }
func (p *exitedProcess) Stderr() io.ReadCloser { return io.NopCloser(strings.NewReader("")) }
func (p *exitedProcess) Done() <-chan struct{} { return p.done }
func (p *exitedProcess) Exit() string          { return "exit status 3" }
func (p *exitedProcess) Stop(time.Duration)    {}

// TestServerThatExitsAtStartSaysHow: a server gone before it read
// initialize is reported by how it ended, not by the broken pipe the
// write met first, however the two interleave (the start timeout bounds
// the wait for its exit).
func TestServerThatExitsAtStartSaysHow(t *testing.T) {
	ws := t.TempDir()
	m := New([]Spec{{Name: "fake", Command: "fake", FilePatterns: []string{"**/*.fk"}}}, nil, Options{
		Workspace: ws, Launcher: exitingLauncher{}, CacheRoot: t.TempDir(), TempRoot: t.TempDir(),
		StartTimeout: time.Minute, RequestTimeout: time.Minute, StopGrace: time.Second,
	}, zerolog.Nop())
	t.Cleanup(func() { m.Close(0) })
	f := filepath.Join(ws, "a.fk")
	os.WriteFile(f, []byte("x\n"), 0o644)
	_, err := m.Run(context.Background(), Request{Operation: "definition", Path: f, Line: 1, Symbol: "x"})
	if err == nil || !strings.Contains(err.Error(), "failed to initialize: exited: exit status 3") {
		t.Fatalf("err = %v", err)
	}
}
