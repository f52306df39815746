package tools

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/sandbox/launch"
	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/internal/web/webtest"
)

// brokenBackend is a backend that is never available.
type brokenBackend struct{}

func (brokenBackend) Name() string     { return "bwrap" }
func (brokenBackend) Available() error { return errors.New("absent for the test") }
func (brokenBackend) Enforcement(sandbox.Policy) sandbox.Enforcement {
	return sandbox.EnforcementFull
}
func (brokenBackend) Prepare(e launch.Exec, _ sandbox.Policy) (launch.Spec, error) {
	return launch.Spec{Exec: e}, nil
}

// testSandbox opens a sandbox: choice "none" (network reachable), "broken"
// (required and unavailable), or "confined" (the first working backend,
// with network as given).
func testSandbox(t *testing.T, choice string, network bool) *sandbox.Sandbox {
	t.Helper()
	opts := sandbox.Options{Choice: choice, Network: network, Workspace: t.TempDir(), TempParent: t.TempDir(),
		Environ: []string{"PATH=" + os.Getenv("PATH")}}
	switch choice {
	case "broken":
		opts.Choice, opts.Require, opts.Backends = "bwrap", true, []sandbox.Backend{brokenBackend{}}
	case "confined":
		opts.Choice, opts.Require = "auto", true
	}
	sb, err := sandbox.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if choice == "confined" && sb.Unavailable() {
		t.Skipf("no sandbox backend works here, so no confined network-off posture to test: %s", sb.Summary())
	}
	return sb
}

// TestDownloadHints: a refusal of a binary body names only what this
// session can run, never a "bash with curl" the image may lack or the
// sandbox's default network-off posture cannot use.
func TestDownloadHints(t *testing.T) {
	none := testSandbox(t, "none", false)
	tests := []struct {
		name     string
		dl       Downloads
		encoding string
		want     string
		never    []string
	}{
		{"no bash", Downloads{Downloader: "curl"}, "",
			"no tool in this session can download it (bash is not available); ask the user for the file", []string{"curl"}},
		{"bash cannot run", Downloads{Sandbox: testSandbox(t, "broken", true), Downloader: "curl"}, "",
			"bash cannot run here (no working sandbox, and STEERABLE_SANDBOX_REQUIRE=1)", []string{"curl"}},
		{"network off", Downloads{Sandbox: testSandbox(t, "confined", false), Downloader: "curl"}, "",
			"bash runs without network access in this session (the user can allow it with STEERABLE_SANDBOX_NETWORK=1), so it cannot download it either; ask the user",
			[]string{"curl", "use bash"}},
		{"network on, nothing installed", Downloads{Sandbox: none}, "",
			"bash has network access but none of curl, wget or python3 is installed; ask the user", []string{"use bash"}},
		{"curl", Downloads{Sandbox: none, Downloader: "curl"}, "", "to download it, use bash: curl -fsSL -o FILE URL", nil},
		{"curl, encoded", Downloads{Sandbox: none, Downloader: "curl"}, "br", "to download it decoded, use bash: curl --compressed -fsSL -o FILE URL", nil},
		{"wget", Downloads{Sandbox: none, Downloader: "wget"}, "", "to download it, use bash: wget -q -O FILE URL", []string{"curl"}},
		{"wget, encoded", Downloads{Sandbox: none, Downloader: "wget"}, "zstd", "wget -q -O FILE URL (FILE keeps the zstd encoding)", []string{"curl"}},
		{"python3", Downloads{Sandbox: none, Downloader: "python3"}, "",
			"to download it, use bash: python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' URL FILE", []string{"curl", "wget"}},
		{"unknown downloader", Downloads{Sandbox: none, Downloader: "aria2c"}, "", "none of curl, wget or python3 is installed", []string{"aria2c"}},
	}
	for _, tc := range tests {
		got := tc.dl.hint(tc.encoding)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q; want it to contain %q", tc.name, got, tc.want)
		}
		for _, n := range tc.never {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q names %q", tc.name, got, n)
			}
		}
	}
	// bash with the network allowed under a real backend.
	on := Downloads{Sandbox: testSandbox(t, "confined", true), Downloader: "wget"}
	if got := on.hint(""); got != "to download it, use bash: wget -q -O FILE URL" {
		t.Errorf("confined, network on: %q", got)
	}
}

// TestDownloadCommandsWork runs each suggested command line, as the model
// would copy it, against a loopback server: a hint must be a command that
// works. A downloader that is not installed here is skipped, saying so.
func TestDownloadCommandsWork(t *testing.T) {
	body := "%PDF-1.7 binary \x00\x01\x02"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	for name, cmd := range downloadCommands {
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath(name); err != nil {
				t.Skipf("%s is not installed here: %v", name, err)
			}
			file := filepath.Join(t.TempDir(), "out.pdf")
			line := strings.NewReplacer("FILE", shellQuote(file), "URL", shellQuote(srv.URL+"/doc.pdf")).Replace(cmd)
			if out, err := exec.Command("bash", "-c", line).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", line, err, out)
			}
			if got, err := os.ReadFile(file); err != nil || string(got) != body {
				t.Errorf("%s wrote %q, %v; want the body", line, got, err)
			}
		})
	}
}

// TestWebFetchBinaryRefusalNamesWhatExists: through the tool, the refusal
// carries the session's hint, and the descriptor names no downloader.
func TestWebFetchBinaryRefusalNamesWhatExists(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write([]byte("%PDF-1.7"))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	f, err := web.NewFetcher(webTestConfig(), webtest.Net(webtest.NewResolver(map[string]string{"site.test": "127.0.0.1"})), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		dl   Downloads
		want string
	}{
		{Downloads{}, "web_fetch reads text only and this response is application/pdf; no tool in this session can download it (bash is not available)"},
		{Downloads{Sandbox: testSandbox(t, "none", false), Downloader: "python3"}, "web_fetch reads text only and this response is application/pdf; to download it, use bash: python3 -c"},
	} {
		tool := WebFetch(f, tc.dl)
		if d := tool.Descriptor().Description; strings.Contains(d, "curl") || strings.Contains(d, "wget") {
			t.Errorf("descriptor names a downloader: %q", d)
		}
		d := NewDispatcher(newTestRegistry(t, tool), nil, zerolog.Nop())
		got := invokeWeb(d, "web_fetch", `{"url":"http://site.test:`+port+`/doc.pdf"}`)
		if got.Success || !got.NeedsFollowup || got.Data["kind"] != "content" || !strings.Contains(got.Error, tc.want) {
			t.Errorf("%+v; want %q", got, tc.want)
		}
	}
}
