package web_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/internal/web/webtest"
)

// TestProductionRefusesLoopback: the zero Net (production) refuses a
// loopback server however it is named, before any connection.
func TestProductionRefusesLoopback(t *testing.T) {
	s := newServer(t, serveText("text/plain", "secret"))
	resolver := webtest.NewResolver(map[string]string{"site.test": "127.0.0.1", "mapped.test": "::ffff:127.0.0.1", "nat64.test": "64:ff9b::7f00:1"})
	f := newFetcher(t, testConfig(), web.Net{Resolver: resolver}) // Permit nil: GlobalOnly
	prod := newFetcher(t, testConfig(), web.Net{})                // all production: system resolver
	for _, c := range []struct {
		f   *web.Fetcher
		url string
	}{
		{f, s.at("site.test", "/")},
		{f, s.at("mapped.test", "/")},
		{f, s.at("nat64.test", "/")},
		{prod, s.URL + "/"},
		{prod, s.at("localhost", "/")},
		{prod, s.at("::1", "/")},
		{prod, s.at("::ffff:127.0.0.1", "/")},
		{prod, "http://169.254.169.254/latest/meta-data/"},
		{prod, "http://[fd00:ec2::254]/latest/meta-data/"},
		{prod, "http://0.0.0.0:" + s.port + "/"},
	} {
		_, err := fetch(t, c.f, c.url, "")
		if !errors.Is(err, web.ErrAddressRefused) {
			t.Errorf("%s: got %v; want an address refusal", c.url, err)
		}
	}
	if n := s.conns.Load(); n != 0 {
		t.Errorf("the loopback server accepted %d connections", n)
	}
}

// TestEveryAnswerChecked: one private answer among public ones refuses the
// host, before any connection.
func TestEveryAnswerChecked(t *testing.T) {
	resolver := webtest.NewResolver(map[string]string{"mixed.test": "8.8.8.8, 10.0.0.1"})
	dials := 0
	n := web.Net{Resolver: resolver, Dial: func(context.Context, string, string, web.ControlFunc) (net.Conn, error) {
		dials++
		return nil, errors.New("no dialling in this test")
	}}
	_, err := fetch(t, newFetcher(t, testConfig(), n), "http://mixed.test/", "")
	if !errors.Is(err, web.ErrAddressRefused) || !strings.Contains(err.Error(), "mixed.test resolves to 10.0.0.1 (private-use, RFC 1918)") {
		t.Errorf("got %v", err)
	}
	if dials != 0 {
		t.Errorf("dialled %d times", dials)
	}
}

// TestRebindingAtConnect: the check sees a public answer, but the
// connection would land on loopback (a dialer that re-resolves, here
// simulated by redirecting the dial). The control hook refuses it before
// connect(2): the server never sees a connection.
func TestRebindingAtConnect(t *testing.T) {
	s := newServer(t, serveText("text/plain", "secret"))
	resolver := webtest.NewResolver(map[string]string{"rebind.test": "8.8.8.8"})
	var dialled []string
	rebinding := func(ctx context.Context, network, address string, control web.ControlFunc) (net.Conn, error) {
		dialled = append(dialled, address)
		d := net.Dialer{Control: control}
		return d.DialContext(ctx, network, s.Listener.Addr().String()) // the answer "changed" to loopback
	}
	f := newFetcher(t, testConfig(), web.Net{Resolver: resolver, Dial: rebinding}) // production policy
	_, err := fetch(t, f, "http://rebind.test:"+s.port+"/", "")
	if !errors.Is(err, web.ErrAddressRefused) || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("got %v; want the loopback connect refused", err)
	}
	if len(dialled) != 1 || dialled[0] != "8.8.8.8:"+s.port {
		t.Errorf("dialled %v; want the checked address once", dialled)
	}
	if n := s.conns.Load(); n != 0 {
		t.Errorf("the server accepted %d connections", n)
	}
}

// TestRebindingAcrossHops: the first hop resolves to the (test-permitted)
// loopback server; the redirect's hop resolves again and gets a private
// answer, which is refused.
func TestRebindingAcrossHops(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/next", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("reached"))
	}))
	resolver := webtest.NewResolver(nil)
	resolver.Answer("flip.test", "127.0.0.1")
	resolver.Answer("flip.test", "10.0.0.7")
	_, err := fetch(t, newFetcher(t, testConfig(), webtest.Net(resolver)), s.at("flip.test", "/start"), "")
	if !errors.Is(err, web.ErrAddressRefused) || !strings.Contains(err.Error(), "10.0.0.7") {
		t.Errorf("got %v", err)
	}
	if got := resolver.Lookups("flip.test"); got != 2 {
		t.Errorf("%d lookups; want one per hop", got)
	}
}

func TestDNSFailures(t *testing.T) {
	_, n := testNet()
	_, err := fetch(t, newFetcher(t, testConfig(), n), "http://nowhere.test/", "")
	if !errors.Is(err, web.ErrNoAddress) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("got %v", err)
	}
}

// TestBinaryDoesNotLinkWebtest: the loopback-permitting test seam never
// reaches the sidecar binary.
func TestBinaryDoesNotLinkWebtest(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "steerable.dev/sidecar/cmd/steerable-sidecar").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "steerable.dev/sidecar/internal/web\n") {
		t.Fatalf("the binary does not link internal/web; is the test looking at the right package?")
	}
	if strings.Contains(string(out), "internal/web/webtest") {
		t.Errorf("the sidecar binary links internal/web/webtest, whose policy permits loopback")
	}
}
