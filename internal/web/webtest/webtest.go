// Package webtest holds the test seams of package web: a resolver that maps
// test host names to loopback and an address policy that permits loopback
// and nothing else. Tests and the benchmark use it; the sidecar binary must
// never link it (web's TestBinaryDoesNotLinkWebtest checks that), because
// production refuses loopback.
package webtest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"

	"steerable.dev/sidecar/internal/web"
)

// LoopbackOnly permits 127.0.0.0/8 and ::1 only. Unlike production's
// GlobalOnly it refuses public addresses too, so a test can never reach the
// internet by mistake.
func LoopbackOnly(host string, addr netip.Addr) error {
	if addr.Unmap().IsLoopback() && addr.Zone() == "" {
		return nil
	}
	return &web.AddrError{Host: host, Verdict: web.Classify(addr)}
}

// Resolver answers from a table: each name maps to a list of answers, one
// per lookup in turn (the last repeats), so a test can change the answer
// between lookups. Unknown names are NXDOMAIN.
type Resolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	lookups map[string]int
}

// NewResolver maps each name to one fixed answer.
func NewResolver(table map[string]string) *Resolver {
	r := &Resolver{answers: map[string][][]netip.Addr{}, lookups: map[string]int{}}
	for name, addrs := range table {
		r.Answer(name, addrs)
	}
	return r
}

// Answer appends one answer (comma-separated addresses) for name.
func (r *Resolver) Answer(name, addrs string) {
	var list []netip.Addr
	for _, a := range strings.Split(addrs, ",") {
		list = append(list, netip.MustParseAddr(strings.TrimSpace(a)))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers[name] = append(r.answers[name], list)
}

// Lookups counts the lookups of name so far.
func (r *Resolver) Lookups(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lookups[name]
}

// LookupNetIP implements web.Resolver.
func (r *Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.answers[host]
	if len(list) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := min(r.lookups[host], len(list)-1)
	r.lookups[host]++
	return list[i], nil
}

// Net is the test network: the resolver and LoopbackOnly.
func Net(r *Resolver) web.Net {
	return web.Net{Resolver: r, Permit: LoopbackOnly}
}

// HostPort splits a test server's URL into its loopback host and port.
func HostPort(rawURL string) (string, string) {
	u := strings.TrimPrefix(strings.TrimPrefix(rawURL, "http://"), "https://")
	host, port, err := net.SplitHostPort(u)
	if err != nil {
		panic(fmt.Sprintf("webtest: %q is not a host:port URL", rawURL))
	}
	return host, port
}

var _ web.Resolver = (*Resolver)(nil)
var _ web.AddrPolicy = LoopbackOnly
