package web_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/internal/web/webtest"
)

// server is a loopback test server that counts the connections it accepted.
type server struct {
	*httptest.Server
	conns atomic.Int64
	port  string
}

func newServer(t *testing.T, h http.Handler) *server {
	t.Helper()
	s := &server{Server: httptest.NewUnstartedServer(h)}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	_, s.port = webtest.HostPort(s.URL)
	return s
}

// at is the URL of path on this server under a test host name.
func (s *server) at(host, path string) string {
	return "http://" + net.JoinHostPort(host, s.port) + path
}

func testConfig() web.Config {
	return web.Config{
		FetchTimeout: 5 * time.Second, FetchMaxBytes: 1 << 20, FetchMaxRedirects: 5,
		SearchTimeout: 5 * time.Second, SearchMaxResults: 8, SessionSearchCap: 200,
		SearchBaseURL: "https://api.tavily.com",
	}
}

// testNet maps site.test and other.test to loopback, with LoopbackOnly.
func testNet() (*webtest.Resolver, web.Net) {
	r := webtest.NewResolver(map[string]string{"site.test": "127.0.0.1", "other.test": "127.0.0.1"})
	return r, webtest.Net(r)
}

func newFetcher(t *testing.T, cfg web.Config, n web.Net) *web.Fetcher {
	t.Helper()
	f, err := web.NewFetcher(cfg, n, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func fetch(t *testing.T, f *web.Fetcher, url, format string) (*web.Page, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return f.Fetch(ctx, url, format)
}

func serveText(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}
}

func zerologNop() zerolog.Logger { return zerolog.Nop() }
