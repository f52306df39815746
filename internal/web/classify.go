package web

import (
	"errors"
	"fmt"
	"net/netip"
)

// Block is one address block of the IANA special-purpose registries (or of
// the address-space registries, for multicast and reserved IPv6 space), with
// the registry's answer to "globally reachable".
type Block struct {
	Prefix netip.Prefix
	Name   string
	RFC    string
	// Global is the registry's "Globally Reachable" column. Blocks the
	// registry marks "N/A" (containers such as 2001::/23, deprecated
	// blocks, 6to4) are false here: fail safe.
	Global bool
}

func block(prefix, name, rfc string, global bool) Block {
	return Block{Prefix: netip.MustParsePrefix(prefix), Name: name, RFC: rfc, Global: global}
}

// specialBlocks is the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (iana-ipv4-special-registry, iana-ipv6-special-registry), plus multicast
// (RFC 5771, RFC 4291 §2.7) and the IPv6 space outside 2000::/3 that the IPv6
// Address Space registry keeps "Reserved by IETF". The most specific block
// containing an address decides; an address in no block is public unicast.
var specialBlocks = []Block{
	// IPv4 special-purpose registry.
	block("0.0.0.0/8", "this network", "RFC 791 §3.2", false),
	block("0.0.0.0/32", "this host on this network", "RFC 1122 §3.2.1.3", false),
	block("10.0.0.0/8", "private-use", "RFC 1918", false),
	block("100.64.0.0/10", "shared address space", "RFC 6598", false),
	block("127.0.0.0/8", "loopback", "RFC 1122 §3.2.1.3", false),
	block("169.254.0.0/16", "link-local", "RFC 3927", false),
	block("172.16.0.0/12", "private-use", "RFC 1918", false),
	block("192.0.0.0/24", "IETF protocol assignments", "RFC 6890 §2.1", false),
	block("192.0.0.0/29", "IPv4 service continuity prefix", "RFC 7335", false),
	block("192.0.0.8/32", "IPv4 dummy address", "RFC 7600", false),
	block("192.0.0.9/32", "port control protocol anycast", "RFC 7723", true),
	block("192.0.0.10/32", "traversal using relays around NAT anycast", "RFC 8155", true),
	block("192.0.0.170/32", "NAT64/DNS64 discovery", "RFC 8880, RFC 7050 §2.2", false),
	block("192.0.0.171/32", "NAT64/DNS64 discovery", "RFC 8880, RFC 7050 §2.2", false),
	block("192.0.2.0/24", "documentation (TEST-NET-1)", "RFC 5737", false),
	block("192.31.196.0/24", "AS112-v4", "RFC 7535", true),
	block("192.52.193.0/24", "AMT", "RFC 7450", true),
	block("192.88.99.0/24", "deprecated (6to4 relay anycast)", "RFC 7526", false),
	block("192.88.99.2/32", "6a44-relay anycast address", "RFC 6751", false),
	block("192.168.0.0/16", "private-use", "RFC 1918", false),
	block("192.175.48.0/24", "direct delegation AS112 service", "RFC 7534", true),
	block("198.18.0.0/15", "benchmarking", "RFC 2544", false),
	block("198.51.100.0/24", "documentation (TEST-NET-2)", "RFC 5737", false),
	block("203.0.113.0/24", "documentation (TEST-NET-3)", "RFC 5737", false),
	block("240.0.0.0/4", "reserved", "RFC 1112 §4", false),
	block("255.255.255.255/32", "limited broadcast", "RFC 8190, RFC 919 §7", false),
	// IPv4 multicast address space registry.
	block("224.0.0.0/4", "multicast", "RFC 5771", false),

	// IPv6 special-purpose registry.
	block("::1/128", "loopback", "RFC 4291", false),
	block("::/128", "unspecified", "RFC 4291", false),
	block("::ffff:0:0/96", "IPv4-mapped", "RFC 4291", false),
	block("64:ff9b::/96", "IPv4-IPv6 translation (NAT64)", "RFC 6052", true),
	block("64:ff9b:1::/48", "IPv4-IPv6 translation, local use", "RFC 8215", false),
	block("100::/64", "discard-only", "RFC 6666", false),
	block("100:0:0:1::/64", "dummy IPv6 prefix", "RFC 9780", false),
	block("2001::/23", "IETF protocol assignments", "RFC 2928", false),
	block("2001::/32", "TEREDO", "RFC 4380, RFC 8190", false),
	block("2001:1::1/128", "port control protocol anycast", "RFC 7723", true),
	block("2001:1::2/128", "traversal using relays around NAT anycast", "RFC 8155", true),
	block("2001:1::3/128", "DNS-SD service registration protocol anycast", "RFC 9665", true),
	block("2001:2::/48", "benchmarking", "RFC 5180", false),
	block("2001:3::/32", "AMT", "RFC 7450", true),
	block("2001:4:112::/48", "AS112-v6", "RFC 7535", true),
	block("2001:10::/28", "deprecated (ORCHID)", "RFC 4843", false),
	block("2001:20::/28", "ORCHIDv2", "RFC 7343", true),
	block("2001:30::/28", "drone remote ID protocol entity tags", "RFC 9374", true),
	block("2001:db8::/32", "documentation", "RFC 3849", false),
	block("2002::/16", "6to4", "RFC 3056", false),
	block("2620:4f:8000::/48", "direct delegation AS112 service", "RFC 7534", true),
	block("3fff::/20", "documentation", "RFC 9637", false),
	block("5f00::/16", "segment routing (SRv6) SIDs", "RFC 9602", false),
	block("fc00::/7", "unique-local", "RFC 4193, RFC 8190", false),
	block("fe80::/10", "link-local unicast", "RFC 4291", false),
	// IPv6 multicast (RFC 4291 §2.7) and the reserved space outside 2000::/3
	// (IPv6 Address Space registry: unassigned, "Reserved by IETF",
	// deprecated site-local fec0::/10, IPv4-compatible ::/96).
	block("ff00::/8", "multicast", "RFC 4291 §2.7", false),
	block("::/3", "reserved by IETF", "RFC 4291", false),
	block("4000::/2", "reserved by IETF", "RFC 4291", false),
	block("8000::/1", "reserved by IETF", "RFC 4291", false),
}

// publicBlock is the class of an address in no special block.
var publicBlock = Block{Name: "public unicast", RFC: "", Global: true}

// Verdict is the classification of one address.
type Verdict struct {
	Addr  netip.Addr // as given
	Block Block      // the most specific block; for a wrapped IPv4, the embedded address's block
	Via   string     // "IPv4-mapped" or "NAT64" when an embedded IPv4 address decided
}

// Global reports whether the address may be reached.
func (v Verdict) Global() bool { return v.Block.Global }

func (v Verdict) String() string {
	s := v.Block.Name
	if v.Block.RFC != "" {
		s += ", " + v.Block.RFC
	}
	if v.Via != "" {
		s += ", embedded in an " + v.Via + " address"
	}
	return s
}

// Classify names the block an address belongs to. IPv4-mapped
// (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses are unwrapped first, so
// ::ffff:127.0.0.1 and 64:ff9b::7f00:1 are loopback. An address with a zone
// is link-scoped by definition and never global.
func Classify(addr netip.Addr) Verdict {
	if addr.Zone() != "" {
		return Verdict{Addr: addr, Block: Block{Name: "scoped address (zone " + addr.Zone() + ")", Global: false}}
	}
	inner, via := unwrap(addr)
	return Verdict{Addr: addr, Block: lookup(inner), Via: via}
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// unwrap returns the IPv4 address embedded in an IPv4-mapped or NAT64
// well-known-prefix address (RFC 4291 §2.5.5.2, RFC 6052 §2.1).
func unwrap(addr netip.Addr) (netip.Addr, string) {
	switch {
	case addr.Is4In6():
		return addr.Unmap(), "IPv4-mapped"
	case addr.Is6() && nat64.Contains(addr):
		b := addr.As16()
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "NAT64"
	}
	return addr, ""
}

// lookup returns the most specific block containing addr.
func lookup(addr netip.Addr) Block {
	best, bits := publicBlock, -1
	for _, b := range specialBlocks {
		if b.Prefix.Bits() > bits && b.Prefix.Contains(addr) {
			best, bits = b, b.Prefix.Bits()
		}
	}
	return best
}

// ErrAddressRefused is wrapped by every refusal of the address policy.
var ErrAddressRefused = errors.New("address refused")

// AddrError is a refused address: which host resolved to it and its class.
type AddrError struct {
	Host    string
	Verdict Verdict
}

func (e *AddrError) Error() string {
	if e.Host != "" && e.Host != e.Verdict.Addr.String() {
		return fmt.Sprintf("%s resolves to %s (%s), which is not a globally reachable address", e.Host, e.Verdict.Addr, e.Verdict)
	}
	return fmt.Sprintf("%s (%s) is not a globally reachable address", e.Verdict.Addr, e.Verdict)
}

func (e *AddrError) Unwrap() error { return ErrAddressRefused }

// AddrPolicy decides whether an address may be connected to; host is the
// name it came from (for the message). nil means GlobalOnly.
type AddrPolicy func(host string, addr netip.Addr) error

// GlobalOnly is the production policy of SPEC §4.3: an address is permitted
// only when the special-purpose registries mark its block globally
// reachable; multicast and reserved space are refused.
func GlobalOnly(host string, addr netip.Addr) error {
	if v := Classify(addr); !v.Global() {
		return &AddrError{Host: host, Verdict: v}
	}
	return nil
}
