package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

// notes records tool.progress notifications.
type notes struct {
	NoHost
	mu  sync.Mutex
	got []protocol.ToolProgressParams
	at  []time.Time
}

func (n *notes) Progress(_ context.Context, p protocol.ToolProgressParams) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, p)
	n.at = append(n.at, time.Now())
}

func bashDeps(t testing.TB, host Host, require bool, choice string) Deps {
	t.Helper()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	sb, err := sandbox.Open(context.Background(), sandbox.Options{Choice: choice, Require: require, Workspace: ws,
		TempParent: t.TempDir(), Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	fw, err := files.Open(ws, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Close() })
	return Deps{Host: host, Log: zerolog.Nop(), Files: fw, Sandbox: sb,
		BashMaxTimeoutMs: 10000, BashMaxOutputBytes: 4096}
}

func callBash(t *testing.T, d Deps, args string) protocol.ToolResult {
	t.Helper()
	return newBash(bashEnvOf(d)).Run(context.Background(), Call{ID: "c1", Arguments: json.RawMessage(args)})
}

func TestBashResults(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // registered first: runs after the sandbox's Close (its launch threads live until then)
	d := bashDeps(t, NoHost{}, false, "none")
	tests := []struct {
		args     string
		success  bool
		followup bool
		errHas   string
		stdout   string
	}{
		{`{"command":"echo hi"}`, true, false, "", "hi\n"},
		{`{"command":"echo partial; exit 2"}`, false, true, "exited with code 2", "partial\n"},
		{`{"command":"pwd","cwd":"sub"}`, true, false, "", filepath.Join(d.Files.Dir(), "sub") + "\n"},
		{`{"command":""}`, false, true, "command is empty", ""},
		{`{"command":"true","cwd":"/"}`, false, true, "escapes the workspace", ""},
		{`{"command":"true","cwd":"sub/../.."}`, false, true, "escapes the workspace", ""},
		{`{"command":"true","timeout_ms":10001}`, false, true, "above the ceiling of 10000 ms", ""},
		{`{"command":"sleep 5","timeout_ms":100}`, false, true, "timed out after 100 ms", ""},
		// The command is the init of its PID namespace: a signal it sends
		// itself is ignored, a fault still kills it.
		{`{"command":"exec python3 -c 'import ctypes; ctypes.string_at(0)'"}`, false, true, "killed by SIGSEGV", ""},
	}
	for _, tt := range tests {
		r := callBash(t, d, tt.args)
		if r.Success != tt.success || r.NeedsFollowup != tt.followup || !strings.Contains(r.Error, tt.errHas) {
			t.Errorf("%s: got success=%v followup=%v error=%q", tt.args, r.Success, r.NeedsFollowup, r.Error)
		}
		if tt.stdout != "" && r.Data["stdout"] != tt.stdout {
			t.Errorf("%s: stdout %q, want %q", tt.args, r.Data["stdout"], tt.stdout)
		}
	}
}

func TestBashSandboxUnavailableIsTerminal(t *testing.T) {
	d := bashDeps(t, NoHost{}, true, "seatbelt")
	r := callBash(t, d, `{"command":"echo run"}`)
	if r.Error != "sandbox_unavailable" || !protocol.IsTerminal(r) || r.Data["stdout"] != nil {
		t.Errorf("got %+v", r)
	}
}

// A command that prints as fast as it can produces a bounded number of
// bounded notifications, and every one arrives before Run returns.
func TestBashProgressIsBatchedAndBounded(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // registered first: runs after the sandbox's Close
	host := &notes{}
	d := bashDeps(t, host, false, "none")
	start := time.Now()
	r := callBash(t, d, `{"command":"echo first; head -c 20000000 /dev/zero | tr '\\0' y; echo; sleep 0.3; echo last"}`)
	elapsed := time.Since(start)
	if !r.Success || r.Data["truncated"] != true {
		t.Fatalf("got %+v", r.Error)
	}
	host.mu.Lock()
	defer host.mu.Unlock()
	perStream := int(elapsed/progressInterval) + 2
	if len(host.got) > 2*perStream {
		t.Errorf("%d notifications in %v; the bound is %d per stream", len(host.got), elapsed, perStream)
	}
	var all strings.Builder
	for _, n := range host.got {
		if n.CallID != "c1" || len(n.Chunk) > progressMaxChunk+100 {
			t.Errorf("notification %q/%s of %d bytes", n.CallID, n.Stream, len(n.Chunk))
		}
		all.WriteString(n.Chunk)
	}
	if s := all.String(); !strings.HasPrefix(s, "first\n") || !strings.HasSuffix(s, "last\n") || !strings.Contains(s, "bytes not streamed") {
		t.Errorf("the live view lost its head, tail or marker: %.40q … %.40q", s, s[max(0, len(s)-40):])
	}
}

func TestProgressKeepsCharactersWhole(t *testing.T) {
	host := &notes{}
	p := startProgress(host, "c")
	p.Write("stdout", []byte("caf\xc3"))
	p.flush(false)
	p.Write("stdout", []byte("\xa9!"))
	p.Close()
	var got []string
	for _, n := range host.got {
		got = append(got, n.Chunk)
	}
	if strings.Join(got, "|") != "caf|é!" {
		t.Errorf("chunks %q", got)
	}
}
