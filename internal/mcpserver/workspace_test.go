//lint:file-ignore SA1019 these tests are of clients before 2026-07-28, which send roots and set a log level (revision.go)

package mcpserver

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func awaitRoot(t *testing.T, h *harness) string {
	t.Helper()
	select {
	case r := <-h.opened:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the workspace was never opened")
		return ""
	}
}

func TestWorkspaceIsTheFirstRoot(t *testing.T) {
	root := resolvedTemp(t)
	writeFile(t, filepath.Join(root, "in-root.txt"), "from the root\n")
	h := newHarness(t, setup{open: true, roots: []string{root, resolvedTemp(t)}})
	res := h.call("read_file", map[string]any{"path": "in-root.txt"})
	if res.IsError || data(t, res)["content"] != "from the root\n" {
		t.Fatalf("read_file in the root: %s", text(res, 0))
	}
	if got := awaitRoot(t, h); got != root {
		t.Errorf("opened %q, want the first root %q", got, root)
	}
}

// TestWorkspaceWithoutRootsIsTheDefault: a client that offers no roots
// works in the default workspace (configuration, else the directory it
// started the server in).
func TestWorkspaceWithoutRootsIsTheDefault(t *testing.T) {
	h := newHarness(t, setup{open: true, client: mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}})
	writeFile(t, filepath.Join(h.dir, "here.txt"), "in the default workspace\n")
	if res := h.call("read_file", map[string]any{"path": "here.txt"}); res.IsError || data(t, res)["content"] != "in the default workspace\n" {
		t.Errorf("read_file in the default workspace: %s", text(res, 0))
	}
	if got := awaitRoot(t, h); got != "" {
		t.Errorf("opened %q for a client without roots, want the default (\"\")", got)
	}
}

func TestRootsMoveIsRefused(t *testing.T) {
	first, other := resolvedTemp(t), resolvedTemp(t)
	logs := make(chan string, 4)
	opts := mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		s, _ := r.Params.Data.(string)
		logs <- s
	}}
	h := newHarness(t, setup{open: true, roots: []string{first}, client: opts})
	if err := h.cs.SetLoggingLevel(testCtx(t), &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	if res := h.call("test_fail", map[string]any{}); strings.Contains(text(res, 0), "refused") {
		t.Fatal("refused before any move")
	}
	h.client.RemoveRoots("file://" + first)
	h.client.AddRoots(&mcp.Root{URI: "file://" + other})
	var msg string
	select {
	case msg = <-logs:
	case <-time.After(10 * time.Second):
		t.Fatal("no MCP log message for the refused move")
	}
	if !strings.Contains(msg, first) || !strings.Contains(msg, "Restart the MCP server") {
		t.Errorf("log message %q; want the workspace and the fix", msg)
	}
	// Two notifications (remove, add) are in flight: wait for the last.
	eventually(t, "a refusal naming both folders", func() bool {
		res := h.call("test_fail", map[string]any{})
		return res.IsError && strings.Contains(text(res, 0), "refused") && strings.Contains(text(res, 0), other)
	})
	// The root comes back: calls resume.
	h.client.AddRoots(&mcp.Root{URI: "file://" + first})
	h.client.RemoveRoots("file://" + other)
	eventually(t, "calls resuming with the workspace back as the first root", func() bool {
		return !strings.Contains(text(h.call("test_fail", map[string]any{}), 0), "refused")
	})
}

// eventually polls cond for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRootsIgnoredWhenTheWorkspaceIsFixed(t *testing.T) {
	h := newHarness(t, setup{roots: []string{resolvedTemp(t)}})
	h.client.AddRoots(&mcp.Root{URI: "file://" + resolvedTemp(t)})
	time.Sleep(50 * time.Millisecond)
	if res := h.call("test_fail", map[string]any{}); strings.Contains(text(res, 0), "refused") {
		t.Errorf("a fixed workspace refused a call after a roots change: %q", text(res, 0))
	}
}

func TestOpenWithoutRootsRunsAtOnce(t *testing.T) {
	h := newServer(t, setup{openNow: true})
	if got := awaitRoot(t, h); got != "" { // before any client connected
		t.Errorf("opened %q, want the configured default", got)
	}
	h.connect(t, setup{roots: []string{resolvedTemp(t)}})
	h.client.AddRoots(&mcp.Root{URI: "file://" + resolvedTemp(t)})
	time.Sleep(50 * time.Millisecond)
	if res := h.call("test_fail", map[string]any{}); strings.Contains(text(res, 0), "refused") {
		t.Errorf("a configured workspace refused a call after a roots change: %q", text(res, 0))
	}
	select {
	case r := <-h.opened:
		t.Errorf("opened a second time, in %q", r)
	default:
	}
}

func TestOpenFailureFailsToolsList(t *testing.T) {
	h := &harness{t: t, dir: resolvedTemp(t), opened: make(chan string, 1)}
	srv, err := New(Options{Host: NewHost(testLog(t)), Log: testLog(t), Roots: true,
		Open: func(context.Context, string) (Tools, error) { return Tools{}, errors.New("boom: not a directory") }})
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	h.connect(t, setup{})
	_, err = h.cs.ListTools(testCtx(t), nil)
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError || !strings.Contains(werr.Message, "boom: not a directory") {
		t.Errorf("tools/list = %v; want -32603 with the cause", err)
	}
}

func TestRootPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	for in, want := range map[string]string{
		"file:///home/u/project":      "/home/u/project",
		"file://localhost/srv/x":      "/srv/x",
		"file:///a%20b/c/../d":        "/a b/d",
		"file://server/share":         "",
		"https://example.com/project": "",
		"file:":                       "",
		"not a uri \x00":              "",
	} {
		got, err := rootPath(in)
		if (err == nil) != (want != "") || got != want {
			t.Errorf("rootPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestSecondConnectIsRefused(t *testing.T) {
	h := newHarness(t, setup{})
	_, st := mcp.NewInMemoryTransports()
	if _, err := h.srv.Connect(testCtx(t), st); err == nil {
		t.Error("a second session was accepted")
	}
}

func FuzzRootPath(f *testing.F) {
	for _, s := range []string{"file:///a/b", "file://localhost/x", "file:///%2e%2e/x", "file:///a%00b", "http://x/y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		p, err := rootPath(uri)
		if err == nil && (!filepath.IsAbs(p) || filepath.Clean(p) != p || strings.ContainsRune(p, 0)) {
			t.Fatalf("rootPath(%q) = %q: not a clean absolute path", uri, p)
		}
	})
}
