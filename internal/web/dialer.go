package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// Resolver looks up the addresses of a host; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ControlFunc is net.Dialer.Control: called with the address about to be
// connected, after the socket exists and before connect(2).
type ControlFunc = func(network, address string, c syscall.RawConn) error

// DialFunc opens a connection to address (an IP literal and port). It must
// call control, when not nil, before connecting: that is where the
// connected address is checked again.
type DialFunc func(ctx context.Context, network, address string, control ControlFunc) (net.Conn, error)

// Net is the network the web tools use. The zero value is the production
// network: the system resolver, a plain net.Dialer and GlobalOnly. Tests
// inject a resolver that maps test names to loopback and the loopback-only
// policy of package webtest; production code never sets these fields.
type Net struct {
	Resolver Resolver
	Dial     DialFunc
	Permit   AddrPolicy
}

func (n Net) withDefaults() Net {
	if n.Resolver == nil {
		n.Resolver = net.DefaultResolver
	}
	if n.Dial == nil {
		n.Dial = systemDial
	}
	if n.Permit == nil {
		n.Permit = GlobalOnly
	}
	return n
}

func systemDial(ctx context.Context, network, address string, control ControlFunc) (net.Conn, error) {
	d := net.Dialer{Control: control, KeepAlive: 30 * time.Second}
	return d.DialContext(ctx, network, address)
}

// pinnedDialer resolves a host once, checks every answer, then connects to
// a checked address and checks the connected address again in the control
// hook. Nothing re-resolves between the check and the connect, so a DNS
// answer that changes in between (rebinding) cannot redirect the
// connection; the control hook refuses anything else that would.
type pinnedDialer struct {
	net Net
	log zerolog.Logger
	// proxies are the host:port of the configured egress proxies: trusted
	// (configured by the host, not the model) and dialled without the check.
	proxies map[string]bool
}

// ErrNoAddress is returned when a host has no address at all.
var ErrNoAddress = errors.New("host has no address")

// resolve returns the host's addresses after checking every one of them:
// one refused answer refuses the host (tools-spec: "DNS answers must ALL be
// globally reachable").
func (d *pinnedDialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	addrs, err := d.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if err := d.net.Permit(host, a); err != nil {
			d.log.Warn().Str("host", host).Str("addr", a.String()).Str("class", Classify(a).String()).
				Str("decision", "refused").Msg("web address check")
			return nil, err
		}
	}
	d.log.Debug().Str("host", host).Interface("addrs", addrs).Str("decision", "allowed").Msg("web address check")
	return addrs, nil
}

func (d *pinnedDialer) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	addrs, err := d.net.Resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return nil, fmt.Errorf("%s: %w (DNS says it does not exist); check the spelling", host, ErrNoAddress)
		}
		return nil, fmt.Errorf("could not resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s: %w", host, ErrNoAddress)
	}
	return addrs, nil
}

// DialContext is http.Transport.DialContext.
func (d *pinnedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if d.proxies[address] {
		return d.net.Dial(ctx, network, address, nil)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range addrs {
		a = a.Unmap()
		conn, err := d.net.Dial(ctx, network, net.JoinHostPort(a.String(), port), d.control(host, a))
		if err == nil {
			return conn, nil
		}
		if errors.Is(err, ErrAddressRefused) || ctx.Err() != nil {
			return nil, err
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// control is the last check, on the address the socket is about to connect
// to: it must be the address that was checked, and permitted.
func (d *pinnedDialer) control(host string, checked netip.Addr) ControlFunc {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("connect to %q refused: %w: not an IP address", address, ErrAddressRefused)
		}
		got := ap.Addr().Unmap()
		if err := d.net.Permit(host, got); err != nil {
			d.log.Warn().Str("host", host).Str("addr", got.String()).Str("checked", checked.String()).
				Str("decision", "refused at connect").Msg("web address check")
			return err
		}
		if got != checked {
			return fmt.Errorf("connect to %s refused: %w: %s was checked for %s", got, ErrAddressRefused, checked, host)
		}
		return nil
	}
}
