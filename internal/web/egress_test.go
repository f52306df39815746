package web_test

import (
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"steerable.dev/sidecar/internal/web"
)

// testProxy is a loopback egress proxy with an exact-host allow-list, like
// the desktop's: CONNECT for https, absolute-URL requests for http. Every
// admitted request goes to target, whatever host it names.
type testProxy struct {
	*server
	allowed  map[string]bool
	target   string // host:port every admitted request reaches
	requests atomic.Int64
	mu       sync.Mutex
	seen     []string
}

func newTestProxy(t *testing.T, target string, allowed ...string) *testProxy {
	p := &testProxy{allowed: map[string]bool{}, target: target}
	for _, h := range allowed {
		p.allowed[h] = true
	}
	p.server = newServer(t, http.HandlerFunc(p.serve))
	return p
}

func (p *testProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.requests.Add(1)
	host := r.URL.Hostname()
	if r.Method == http.MethodConnect {
		host, _, _ = net.SplitHostPort(r.Host)
	}
	p.mu.Lock()
	p.seen = append(p.seen, r.Method+" "+host)
	p.mu.Unlock()
	if !p.allowed[host] {
		http.Error(w, "host not allowed", http.StatusForbidden)
		return
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w)
		return
	}
	out, _ := http.NewRequest(r.Method, "http://"+p.target+r.URL.RequestURI(), nil)
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

func (p *testProxy) tunnel(w http.ResponseWriter) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusOK)
	down, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		up.Close()
		return
	}
	go func() { _, _ = io.Copy(up, buf); up.Close() }()
	_, _ = io.Copy(down, up)
	down.Close()
}

func proxied(t *testing.T, proxy string, mutate func(*web.Config)) (*web.Fetcher, web.Net) {
	resolver, n := testNet()
	resolver.Answer("internal.test", "10.0.0.9")
	cfg := testConfig()
	cfg.EgressConfined = true
	cfg.HTTPSProxy, cfg.HTTPProxy = proxy, proxy
	if mutate != nil {
		mutate(&cfg)
	}
	return newFetcher(t, cfg, n), n
}

func TestProxyHTTP(t *testing.T) {
	s := newServer(t, serveText("text/plain", "via proxy"))
	p := newTestProxy(t, s.Listener.Addr().String(), "site.test")
	f, _ := proxied(t, p.URL, nil)
	page, err := fetch(t, f, s.at("site.test", "/x"), "")
	if err != nil || page.Content != "via proxy" {
		t.Fatalf("%+v %v", page, err)
	}
	page, err = fetch(t, f, s.at("other.test", "/x"), "")
	if err != nil || page.Status != http.StatusForbidden || !strings.Contains(strings.Join(page.Warnings, ""), "STEERABLE_WEB_ALLOWED_DOMAINS") {
		t.Errorf("refused by the proxy: %+v %v", page, err)
	}
	if got := p.requests.Load(); got != 2 {
		t.Errorf("proxy saw %d requests", got)
	}
}

func TestProxyConnect(t *testing.T) {
	tls := httptest.NewUnstartedServer(serveText("text/plain", "secure"))
	tls.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake fails on purpose
	var tlsConns atomic.Int64
	tls.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			tlsConns.Add(1)
		}
	}
	tls.StartTLS()
	defer tls.Close()
	_, port, _ := net.SplitHostPort(tls.Listener.Addr().String())
	p := newTestProxy(t, tls.Listener.Addr().String(), "site.test")
	f, _ := proxied(t, p.URL, nil)

	// Admitted: the tunnel reaches the server (whose test certificate the
	// fetcher rightly does not trust).
	_, err := fetch(t, f, "https://site.test:"+port+"/", "")
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("through the tunnel: %v", err)
	}
	if tlsConns.Load() != 1 {
		t.Errorf("the server behind the tunnel saw %d connections", tlsConns.Load())
	}
	// Refused by the proxy: the error names the list and the exact-host rule.
	_, err = fetch(t, f, "https://other.test:"+port+"/", "")
	if !errors.Is(err, web.ErrProxyRefused) || !strings.Contains(err.Error(), "CONNECT answered 403 Forbidden") ||
		!strings.Contains(err.Error(), "add other.test to STEERABLE_WEB_ALLOWED_DOMAINS") || !strings.Contains(err.Error(), "matches them exactly") {
		t.Errorf("refused CONNECT: %v", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if want := []string{"CONNECT site.test", "CONNECT other.test"}; strings.Join(p.seen, ",") != strings.Join(want, ",") {
		t.Errorf("proxy saw %v; want %v", p.seen, want)
	}
}

// TestProxyPreCheck: the policy and the address check still run before the
// proxy sees anything.
func TestProxyPreCheck(t *testing.T) {
	p := newTestProxy(t, "127.0.0.1:1", "internal.test", "blocked.test")
	f, _ := proxied(t, p.URL, func(c *web.Config) { c.BlockedDomains = []string{"blocked.test"} })
	if _, err := fetch(t, f, "https://internal.test/", ""); !errors.Is(err, web.ErrAddressRefused) {
		t.Errorf("private answer: %v", err)
	}
	if _, err := fetch(t, f, "http://blocked.test/", ""); !errors.Is(err, web.ErrDomainRefused) {
		t.Errorf("blocked: %v", err)
	}
	if _, err := fetch(t, f, "http://169.254.169.254/", ""); !errors.Is(err, web.ErrAddressRefused) {
		t.Errorf("metadata literal: %v", err)
	}
	if n := p.requests.Load(); n != 0 {
		t.Errorf("the proxy saw %d requests", n)
	}
}

func TestProxyUnreachable(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String()
	l.Close()
	f, _ := proxied(t, dead, nil)
	_, err := fetch(t, f, "https://site.test/", "")
	if !errors.Is(err, web.ErrProxyRefused) || !strings.Contains(err.Error(), "the proxy could not be reached") {
		t.Errorf("https: %v", err)
	}
	_, err = fetch(t, f, "http://site.test/", "")
	if !errors.Is(err, web.ErrProxyRefused) {
		t.Errorf("http: %v", err)
	}
}

func TestProxyNoProxyAndSingleVar(t *testing.T) {
	s := newServer(t, serveText("text/plain", "direct"))
	p := newTestProxy(t, s.Listener.Addr().String(), "site.test")
	f, _ := proxied(t, p.URL, func(c *web.Config) { c.NoProxy = "site.test" })
	if page, err := fetch(t, f, s.at("site.test", "/"), ""); err != nil || page.Content != "direct" {
		t.Errorf("NO_PROXY host: %v", err)
	}
	if n := p.requests.Load(); n != 0 {
		t.Errorf("NO_PROXY host went through the proxy")
	}
	// Confined with only HTTP_PROXY: https goes through it too.
	f, _ = proxied(t, "", func(c *web.Config) { c.HTTPProxy = p.URL })
	_, _ = fetch(t, f, "https://other.test/", "")
	if n := p.requests.Load(); n != 1 {
		t.Errorf("https with only HTTP_PROXY in the confined posture: the proxy saw %d requests", n)
	}
}

func TestProxyBadURL(t *testing.T) {
	cfg := testConfig()
	cfg.HTTPSProxy = "socks5://127.0.0.1:1080"
	if _, err := web.NewFetcher(cfg, web.Net{}, zerologNop()); err == nil || !strings.Contains(err.Error(), `HTTPS_PROXY="socks5://127.0.0.1:1080": proxy scheme "socks5" is not supported`) {
		t.Errorf("got %v", err)
	}
}
