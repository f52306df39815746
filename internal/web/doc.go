// Package web implements the network-read pair, web_fetch and web_search:
// address classification, URL validation, the domain policy, a pinned
// dialer, bounded fetching with HTML-to-Markdown conversion, and the search
// providers (SPEC §4.3, tools-spec "Web tools").
//
// # Threat model
//
// web_fetch takes a URL from the model, and the model reads text that anyone
// on the internet may have written: the URL is hostile input crossing into
// the user's network position. The sidecar runs on the user's machine,
// inside their LAN or VPN, next to cloud metadata endpoints
// (169.254.169.254), local admin panels and development servers on
// loopback. A fetch must never reach any of them, whatever the URL, the DNS
// answers or the redirects say. What a page says is also hostile: its size,
// its speed, its encoding and its content type are bounded or refused.
//
// # Checks, in order
//
//  1. Egress posture. STEERABLE_EGRESS_CONFINED=1 without a proxy fails
//     loudly (ErrEgressMisconfigured) instead of hanging behind an absent
//     proxy.
//  2. URL shape, without DNS (ParseURL): http or https, absolute, at most
//     2048 bytes, no credentials, no control characters, whitespace or
//     backslashes (parsers disagree about them, which is how a URL checked
//     as one host is fetched from another), a host in canonical form: IDNs
//     to punycode (UTS #46), lowercase, no trailing dot, no IPv6 zone, and
//     no IPv4 address in a non-standard spelling (127.1, 0x7f.1,
//     2130706433), which browsers and inet_aton read as addresses.
//  3. Domain policy (Policy), without DNS: blocked wins, an entry covers
//     its subdomains, an empty allow-list allows every host.
//  4. The session cap (Cap): a call counts once admitted.
//  5. Per hop — the first URL and every redirect: resolve the host, check
//     every answer (all must be globally reachable), connect to a checked
//     address, and check the address actually connected to in the dialer's
//     control hook.
//
// # Addresses
//
// Classify names the block of the IANA special-purpose registries an
// address belongs to (most specific block wins), and "globally reachable"
// is that registry's column: loopback, private-use, shared, link-local,
// documentation, benchmarking, reserved, multicast, 6to4, Teredo, ULA and
// the rest are refused; blocks the registry marks N/A are refused too (fail
// safe). IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
// addresses are unwrapped and the embedded IPv4 address decides.
//
// # Rebinding
//
// A resolver that answers a public address to the check and a private one
// to the connect (DNS rebinding, a TOCTOU) defeats a check that resolves
// twice. The pinned dialer resolves once per hop and dials the checked IP
// literal, and its control hook refuses a connect to any address that is
// not the checked one or is not permitted. The seed implementation admits
// this gap; this one closes it.
//
// # The egress proxy
//
// With HTTPS_PROXY/HTTP_PROXY set, requests go through the proxy (NO_PROXY
// honoured). The proxy resolves the name itself, so the address check runs
// before the request instead (a pre-check: the proxy, trusted by the host,
// owns the connect). A refusal or a connection failure of the proxy is a
// ProxyError naming STEERABLE_WEB_ALLOWED_DOMAINS, the one list that feeds
// both this package's policy and the proxy, and the proxy's exact-host
// matching.
//
// # Bounds
//
// The fetch timeout covers the whole call, body included (slow-loris
// servers end there); the body is streamed up to fetch_max_bytes, after
// decompression (gzip bombs end there) and then marked truncated; redirects
// are same-origin only and capped, and a 3xx that cannot be followed (no
// Location, 300, 304, …) is a StatusError, never a page; non-text content
// types are refused as a ContentError whose Download flag lets the tools
// layer say how, if at all, the session can download them; charsets are decoded to UTF-8 with invalid
// bytes replaced; HTML nesting more than the parser's 512 open elements
// (which also bounds the Markdown converter's recursion) is rendered as
// plain text by the streaming tokenizer.
//
// # Test seams
//
// Net carries the resolver, the dial function and the address policy. Its
// zero value is production. Tests inject a resolver that maps test names to
// loopback and webtest.LoopbackOnly, which permits loopback and nothing
// else, so tests never reach the internet; a test checks that the binary
// does not link package webtest, and end-to-end scripts check that the
// binary refuses loopback.
package web
