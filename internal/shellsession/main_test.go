package shellsession

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/sandbox"
)

// TestMain lets the test binary be the Landlock backend's re-executed
// helper, as the sidecar binary is, and checks that no goroutine outlives
// the tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.ExecMain(os.Args[2:], os.Stderr))
	}
	goleak.VerifyTestMain(m)
}

// backends are the Linux backends every behaviour runs under.
var backends = []string{"bwrap", "landlock", "none"}

// openManager opens a sandbox with exactly the named backend on a fresh
// workspace and a Manager over it; both close with the test.
func openManager(t *testing.T, backend string, opts Options) (*Manager, string) {
	t.Helper()
	return openManagerNet(t, backend, false, opts)
}

// openManagerNet is openManager with the sandbox's network on or off.
func openManagerNet(t *testing.T, backend string, network bool, opts Options) (*Manager, string) {
	t.Helper()
	ws := realTempDir(t)
	sb, err := sandbox.Open(context.Background(), sandbox.Options{Choice: backend, Workspace: ws, TempParent: realTempDir(t),
		Network: network,
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OPENAI_API_KEY=sk-test"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if got := sb.Info().Backend; got != backend || sb.Unavailable() {
		t.Skipf("the %s backend does not work here: %s", backend, sb.Summary())
	}
	opts.Sandbox, opts.Dir, opts.Log = sb, ws, zerolog.Nop()
	if opts.BufferBytes == 0 {
		opts.BufferBytes = 1 << 20
	}
	if opts.MaxSessions == 0 {
		opts.MaxSessions = 8
	}
	if opts.Idle == 0 {
		opts.Idle = time.Hour
	}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m, ws
}

func realTempDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// forEachBackend runs f as a subtest per backend.
func forEachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) { f(t, b) })
	}
}

func req(chars string, yield time.Duration) Request {
	return Request{Chars: chars, Yield: yield, MaxOutput: 30000}
}
