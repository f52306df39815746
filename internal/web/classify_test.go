package web_test

import (
	"errors"
	"net/netip"
	"testing"

	"steerable.dev/sidecar/internal/web"
)

type classCase struct {
	addr   string
	block  string
	global bool
}

// classTables lists addresses by the RFC of their block: every block of the
// IANA IPv4 and IPv6 special-purpose registries, multicast, reserved space,
// the mapped and NAT64 forms, and public controls.
var classTables = map[string][]classCase{
	"RFC 791/1122 this network, loopback": {
		{"0.0.0.0", "this host on this network", false},
		{"0.1.2.3", "this network", false},
		{"127.0.0.1", "loopback", false},
		{"127.255.255.254", "loopback", false},
	},
	"RFC 1918 private-use": {
		{"10.0.0.1", "private-use", false},
		{"172.16.0.1", "private-use", false},
		{"172.31.255.255", "private-use", false},
		{"192.168.1.1", "private-use", false},
		{"172.32.0.1", "public unicast", true},
		{"172.15.255.255", "public unicast", true},
	},
	"RFC 6598 shared address space": {
		{"100.64.0.1", "shared address space", false},
		{"100.127.255.255", "shared address space", false},
		{"100.128.0.1", "public unicast", true},
	},
	"RFC 3927 link-local (cloud metadata)": {
		{"169.254.169.254", "link-local", false},
		{"169.254.0.1", "link-local", false},
	},
	"RFC 6890 IETF protocol assignments": {
		{"192.0.0.1", "IPv4 service continuity prefix", false},
		{"192.0.0.8", "IPv4 dummy address", false},
		{"192.0.0.9", "port control protocol anycast", true},
		{"192.0.0.10", "traversal using relays around NAT anycast", true},
		{"192.0.0.170", "NAT64/DNS64 discovery", false},
		{"192.0.0.171", "NAT64/DNS64 discovery", false},
		{"192.0.0.200", "IETF protocol assignments", false},
	},
	"RFC 5737 documentation": {
		{"192.0.2.1", "documentation (TEST-NET-1)", false},
		{"198.51.100.7", "documentation (TEST-NET-2)", false},
		{"203.0.113.9", "documentation (TEST-NET-3)", false},
	},
	"RFC 7535/7534/7450 AS112 and AMT": {
		{"192.31.196.1", "AS112-v4", true},
		{"192.175.48.1", "direct delegation AS112 service", true},
		{"192.52.193.1", "AMT", true},
	},
	"RFC 7526/6751 6to4 relay": {
		{"192.88.99.1", "deprecated (6to4 relay anycast)", false},
		{"192.88.99.2", "6a44-relay anycast address", false},
	},
	"RFC 2544 benchmarking": {
		{"198.18.0.1", "benchmarking", false},
		{"198.19.255.255", "benchmarking", false},
	},
	"RFC 1112/919 reserved and broadcast": {
		{"240.0.0.1", "reserved", false},
		{"255.255.255.254", "reserved", false},
		{"255.255.255.255", "limited broadcast", false},
	},
	"RFC 5771 IPv4 multicast": {
		{"224.0.0.1", "multicast", false},
		{"239.255.255.250", "multicast", false},
	},
	"public IPv4": {
		{"1.1.1.1", "public unicast", true},
		{"8.8.8.8", "public unicast", true},
		{"93.184.216.34", "public unicast", true},
	},
	"RFC 4291 IPv6 basics": {
		{"::1", "loopback", false},
		{"::", "unspecified", false},
		{"fe80::1", "link-local unicast", false},
		{"ff02::1", "multicast", false},
		{"ff0e::1", "multicast", false},
		{"::127.0.0.1", "reserved by IETF", false}, // deprecated IPv4-compatible
		{"fec0::1", "reserved by IETF", false},     // deprecated site-local
		{"4000::1", "reserved by IETF", false},
		{"e000::1", "reserved by IETF", false},
	},
	"RFC 4291 §2.5.5.2 IPv4-mapped, unwrapped": {
		{"::ffff:127.0.0.1", "loopback", false},
		{"::ffff:7f00:1", "loopback", false},
		{"::ffff:169.254.169.254", "link-local", false},
		{"::ffff:10.1.2.3", "private-use", false},
		{"::ffff:8.8.8.8", "public unicast", true},
	},
	"RFC 6052 NAT64, unwrapped": {
		{"64:ff9b::127.0.0.1", "loopback", false},
		{"64:ff9b::a9fe:a9fe", "link-local", false},
		{"64:ff9b::192.168.0.1", "private-use", false},
		{"64:ff9b::8.8.8.8", "public unicast", true},
	},
	"RFC 8215 local-use NAT64": {
		{"64:ff9b:1::8.8.8.8", "IPv4-IPv6 translation, local use", false},
	},
	"RFC 6666/9780 discard and dummy": {
		{"100::1", "discard-only", false},
		{"100:0:0:1::1", "dummy IPv6 prefix", false},
	},
	"RFC 2928 IETF protocol assignments (IPv6)": {
		{"2001::1", "TEREDO", false},
		{"2001:1::1", "port control protocol anycast", true},
		{"2001:1::2", "traversal using relays around NAT anycast", true},
		{"2001:1::3", "DNS-SD service registration protocol anycast", true},
		{"2001:1::4", "IETF protocol assignments", false},
		{"2001:2::1", "benchmarking", false},
		{"2001:3::1", "AMT", true},
		{"2001:4:112::1", "AS112-v6", true},
		{"2001:10::1", "deprecated (ORCHID)", false},
		{"2001:20::1", "ORCHIDv2", true},
		{"2001:30::1", "drone remote ID protocol entity tags", true},
	},
	"RFC 3849/9637 IPv6 documentation": {
		{"2001:db8::1", "documentation", false},
		{"3fff::1", "documentation", false},
	},
	"RFC 3056 6to4": {
		{"2002:7f00:1::1", "6to4", false},
		{"2002:808:808::1", "6to4", false},
	},
	"RFC 7534 AS112 IPv6": {
		{"2620:4f:8000::1", "direct delegation AS112 service", true},
	},
	"RFC 9602 SRv6 SIDs": {
		{"5f00::1", "segment routing (SRv6) SIDs", false},
	},
	"RFC 4193 unique-local": {
		{"fc00::1", "unique-local", false},
		{"fd12:3456::1", "unique-local", false},
	},
	"public IPv6": {
		{"2606:4700:4700::1111", "public unicast", true},
		{"2a00:1450:4001::200e", "public unicast", true},
	},
}

func TestClassify(t *testing.T) {
	for group, cases := range classTables {
		for _, c := range cases {
			t.Run(group+"/"+c.addr, func(t *testing.T) {
				v := web.Classify(netip.MustParseAddr(c.addr))
				if v.Block.Name != c.block || v.Global() != c.global {
					t.Errorf("Classify(%s) = %q global=%v; want %q global=%v", c.addr, v.Block.Name, v.Global(), c.block, c.global)
				}
				err := web.GlobalOnly("h", netip.MustParseAddr(c.addr))
				if (err == nil) != c.global {
					t.Errorf("GlobalOnly(%s) = %v; want permitted=%v", c.addr, err, c.global)
				}
				if err != nil && !errors.Is(err, web.ErrAddressRefused) {
					t.Errorf("GlobalOnly error %v does not wrap ErrAddressRefused", err)
				}
			})
		}
	}
}

// TestClassifySpellings: the IPv4 spellings Go's parser accepts or refuses.
// netip rejects the inet_aton forms outright (leading zeros, short forms,
// hex, a bare integer), so they never become addresses here; ParseURL
// refuses them as hosts (see TestParseURL).
func TestClassifySpellings(t *testing.T) {
	for _, s := range []string{"0177.0.0.1", "0x7f.0.0.1", "127.1", "2130706433", "017700000001", "127.0.0.1.", "1.2.3.4.5"} {
		if _, err := netip.ParseAddr(s); err == nil {
			t.Errorf("netip.ParseAddr(%q) accepted a non-canonical IPv4 spelling", s)
		}
	}
	v := web.Classify(netip.MustParseAddr("fe80::1%eth0"))
	if v.Global() || v.Block.Name != "scoped address (zone eth0)" {
		t.Errorf("zoned address: %+v", v)
	}
	if err := web.GlobalOnly("h", netip.MustParseAddr("2606:4700:4700::1111%eth0")); err == nil {
		t.Errorf("a zoned public-looking address was permitted")
	}
}

// TestClassifyMessage: the refusal names the host, the address and its block.
func TestClassifyMessage(t *testing.T) {
	err := web.GlobalOnly("metadata.internal", netip.MustParseAddr("::ffff:169.254.169.254"))
	want := "metadata.internal resolves to ::ffff:169.254.169.254 (link-local, RFC 3927, embedded in an IPv4-mapped address), which is not a globally reachable address"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func FuzzClassify(f *testing.F) {
	for _, cases := range classTables {
		for _, c := range cases {
			f.Add(netip.MustParseAddr(c.addr).AsSlice())
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		addr, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		v := web.Classify(addr)
		// Invariants: the mapped form classifies like the IPv4 address;
		// loopback, private, link-local and multicast are never global.
		if addr.Is4() && web.Classify(netip.AddrFrom16(addr.As16())).Global() != v.Global() {
			t.Fatalf("%s and its IPv4-mapped form disagree", addr)
		}
		u := addr.Unmap()
		if v.Global() && (u.IsLoopback() || u.IsPrivate() || u.IsLinkLocalUnicast() || u.IsMulticast() || u.IsUnspecified() || u.IsInterfaceLocalMulticast()) {
			t.Fatalf("%s classified global (%s)", addr, v)
		}
	})
}
