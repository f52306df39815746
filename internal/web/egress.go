package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// ErrEgressMisconfigured is the loud failure of tools-spec "Egress-proxy
// interaction": the host says outbound traffic is confined to a proxy but
// names none, so every request would hang or fail behind it.
var ErrEgressMisconfigured = errors.New("STEERABLE_EGRESS_CONFINED=1 but neither HTTPS_PROXY nor HTTP_PROXY is set: " +
	"outbound traffic is confined to an egress proxy the sidecar cannot reach; " +
	"set HTTPS_PROXY (and HTTP_PROXY) to the proxy's URL, or unset STEERABLE_EGRESS_CONFINED")

// egress is the proxy posture: which proxy a URL goes through, if any.
type egress struct {
	confined bool
	proxy    func(*url.URL) (*url.URL, error) // nil: direct
	addrs    map[string]bool                  // host:port of each proxy
}

func newEgress(cfg Config) (egress, error) {
	e := egress{confined: cfg.EgressConfined, addrs: map[string]bool{}}
	if cfg.HTTPSProxy == "" && cfg.HTTPProxy == "" {
		return e, nil
	}
	for name, raw := range map[string]string{"HTTPS_PROXY": cfg.HTTPSProxy, "HTTP_PROXY": cfg.HTTPProxy} {
		if raw == "" {
			continue
		}
		u, err := parseProxyURL(raw)
		if err != nil {
			return egress{}, fmt.Errorf("%s=%q: %v", name, raw, err)
		}
		e.addrs[net.JoinHostPort(u.Hostname(), proxyPort(u))] = true
	}
	pc := httpproxy.Config{HTTPSProxy: cfg.HTTPSProxy, HTTPProxy: cfg.HTTPProxy, NoProxy: cfg.NoProxy}
	if e.confined {
		// Direct traffic cannot leave a confined sidecar: the one proxy
		// given serves both schemes.
		pc.HTTPSProxy, pc.HTTPProxy = cmp.Or(pc.HTTPSProxy, pc.HTTPProxy), cmp.Or(pc.HTTPProxy, pc.HTTPSProxy)
	}
	e.proxy = pc.ProxyFunc()
	return e, nil
}

// parseProxyURL accepts what curl and net/http accept: a URL, or a bare
// host:port meaning http://host:port.
func parseProxyURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		u, err = url.Parse("http://" + raw)
	}
	if err != nil || u.Hostname() == "" {
		return nil, errors.New("not a proxy URL; use http://host:port")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("proxy scheme %q is not supported; use http:// or https://", u.Scheme)
	}
	return u, nil
}

func proxyPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// check is the first check of every web call (SPEC §4.3 order).
func (e egress) check() error {
	if e.confined && e.proxy == nil {
		return ErrEgressMisconfigured
	}
	return nil
}

// proxyFor returns the proxy a request to u goes through (nil: direct).
func (e egress) proxyFor(u *url.URL) *url.URL {
	if e.proxy == nil {
		return nil
	}
	p, err := e.proxy(u)
	if err != nil {
		return nil
	}
	return p
}

// Describe is the posture in words, for checks.web.
func (e egress) Describe() string {
	switch {
	case e.proxy != nil && e.confined:
		return "egress confined to the proxy"
	case e.proxy != nil:
		return "through the configured proxy"
	}
	return "direct egress"
}

// ErrProxyRefused is wrapped by a refusal or connection failure of the
// egress proxy.
var ErrProxyRefused = errors.New("egress proxy refused the request")

// ProxyError explains a proxy failure the way tools-spec asks: the proxy's
// allow-list is STEERABLE_WEB_ALLOWED_DOMAINS, matched by exact host.
type ProxyError struct {
	Host   string
	Detail string
}

func (e *ProxyError) Error() string {
	return fmt.Sprintf("the egress proxy did not let the request to %s through (%s). The proxy admits only the hosts listed in "+
		"STEERABLE_WEB_ALLOWED_DOMAINS and matches them exactly: a subdomain of a listed domain must be listed itself, "+
		"and an empty list admits nothing. Ask the user to add %s to STEERABLE_WEB_ALLOWED_DOMAINS", e.Host, e.Detail, e.Host)
}

func (e *ProxyError) Unwrap() error { return ErrProxyRefused }

// onProxyConnect turns a non-200 CONNECT answer into a ProxyError.
func onProxyConnect(_ context.Context, _ *url.URL, req *http.Request, res *http.Response) error {
	if res.StatusCode == http.StatusOK {
		return nil
	}
	host, _, err := net.SplitHostPort(req.Host) // CONNECT's target, host:port
	if err != nil {
		host = req.Host
	}
	return &ProxyError{Host: host, Detail: "CONNECT answered " + strings.TrimSpace(res.Status)}
}

// proxyFailure recognises a failure to reach the proxy itself.
func proxyFailure(err error, host string) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "proxyconnect" {
		return &ProxyError{Host: host, Detail: "the proxy could not be reached: " + op.Err.Error()}
	}
	return nil
}
