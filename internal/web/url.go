package web

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// MaxURLLength is the longest URL web_fetch accepts (tools-spec "SSRF policy").
const MaxURLLength = 2048

// ErrBadURL is wrapped by every URL refusal.
var ErrBadURL = errors.New("invalid URL")

// URLError is a refused URL with the reason, which names the fix.
type URLError struct {
	URL    string
	Reason string
}

func (e *URLError) Error() string {
	return fmt.Sprintf("invalid URL %.200q: %s", e.URL, e.Reason)
}

func (e *URLError) Unwrap() error { return ErrBadURL }

// Target is a validated URL: absolute http(s), no credentials, and a host
// in canonical form (ASCII, lowercase, no trailing dot).
type Target struct {
	URL  *url.URL   // normalised; URL.Host carries the canonical host (and port)
	Host string     // canonical host: an IDN in punycode, or an IP literal without brackets
	Port string     // explicit or the scheme's default
	IP   netip.Addr // set when Host is an IP literal
}

// Origin is scheme://host:port, the unit of the same-origin rule.
func (t Target) Origin() string { return t.URL.Scheme + "://" + net.JoinHostPort(t.Host, t.Port) }

// ParseURL validates a model-supplied URL without any DNS: length, characters,
// scheme, credentials, host. Surrounding spaces are trimmed; anything else
// odd is refused rather than repaired, so what is checked is what is fetched.
func ParseURL(raw string) (Target, error) {
	raw = strings.Trim(raw, " ")
	bad := func(format string, a ...any) (Target, error) {
		return Target{}, &URLError{URL: raw, Reason: fmt.Sprintf(format, a...)}
	}
	if raw == "" {
		return bad("the URL is empty; pass an absolute http:// or https:// URL")
	}
	if len(raw) > MaxURLLength {
		return bad("the URL is %d bytes long; the limit is %d", len(raw), MaxURLLength)
	}
	if reason := badChars(raw); reason != "" {
		return bad("%s", reason)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("%v", unwrapURLErr(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return bad("only http and https URLs can be fetched, not %q", u.Scheme)
	}
	if u.Opaque != "" || !strings.HasPrefix(raw[len(u.Scheme)+1:], "//") {
		return bad("write the URL as %s://host/path", u.Scheme)
	}
	if u.User != nil || strings.Contains(u.Host, "@") {
		return bad("credentials in URLs are not allowed; remove the user:password@ part")
	}
	t, err := canonicalTarget(u)
	if err != nil {
		return bad("%v", err)
	}
	return t, nil
}

// badChars refuses control characters, whitespace, backslashes and invalid
// UTF-8: parsers disagree about all of them (WHATWG reads "\" as "/"), which
// is how a URL that is checked as one host gets fetched from another.
func badChars(s string) string {
	if !utf8.ValidString(s) {
		return "the URL is not valid UTF-8"
	}
	for i, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return fmt.Sprintf("control character %U at byte %d; percent-encode it or remove it", r, i)
		case r == ' ' || r == '\u00a0' || r == '\u2028' || r == '\u2029' || r == '\u3000':
			return fmt.Sprintf("whitespace at byte %d; percent-encode it as %%20", i)
		case r == '\\':
			return fmt.Sprintf("backslash at byte %d; use / in paths or percent-encode it as %%5C", i)
		}
	}
	return ""
}

func unwrapURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// canonicalTarget checks and normalises the host and port of a parsed URL.
func canonicalTarget(u *url.URL) (Target, error) {
	hostname, port := u.Hostname(), u.Port()
	if hostname == "" {
		return Target{}, errors.New("the URL has no host")
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return Target{}, fmt.Errorf("port %q is not in 1..65535", port)
	}
	host, ip, err := canonicalHost(hostname, strings.HasPrefix(u.Host, "["))
	if err != nil {
		return Target{}, err
	}
	out := *u
	out.Host = host
	if ip.Is6() {
		out.Host = "[" + host + "]"
	}
	if u.Port() != "" {
		out.Host = net.JoinHostPort(host, port)
	}
	out.Fragment, out.RawFragment = "", ""
	return Target{URL: &out, Host: host, Port: port, IP: ip}, nil
}

// canonicalHost returns the host in the form policy and DNS see: an IP
// literal in Go's canonical spelling, or an ASCII (punycode) lowercase name
// without a trailing dot.
func canonicalHost(h string, bracketed bool) (string, netip.Addr, error) {
	if bracketed {
		ip, err := netip.ParseAddr(h)
		switch {
		case err != nil || !ip.Is6():
			return "", netip.Addr{}, fmt.Errorf("%q is not an IPv6 address", h)
		case ip.Zone() != "":
			return "", netip.Addr{}, fmt.Errorf("IPv6 zone identifiers (%%%s) are not allowed; they name a local interface", ip.Zone())
		}
		return ip.String(), ip, nil
	}
	if ip, err := netip.ParseAddr(h); err == nil && ip.Is4() {
		return ip.String(), ip, nil
	}
	name := strings.TrimSuffix(strings.ToLower(h), ".")
	if name == "" || strings.HasSuffix(name, ".") {
		return "", netip.Addr{}, fmt.Errorf("host %q has an empty label", h)
	}
	ascii, err := idnaProfile.ToASCII(name)
	if err != nil {
		return "", netip.Addr{}, fmt.Errorf("host %q is not a valid domain name: %v", h, err)
	}
	// The mapping turns the other full stops (。．｡) into dots, so the root
	// label is dropped, and empty labels refused, once more after it.
	if ascii = strings.TrimSuffix(ascii, "."); ascii == "" || strings.HasSuffix(ascii, ".") {
		return "", netip.Addr{}, fmt.Errorf("host %q has an empty label", h)
	}
	if endsInNumber(ascii) {
		return "", netip.Addr{}, fmt.Errorf("host %q looks like an IPv4 address in a non-standard spelling; write it as four decimal numbers (a.b.c.d)", h)
	}
	return ascii, netip.Addr{}, nil
}

// idnaProfile is UTS #46 lookup processing: mapping, bidi and joiner rules,
// STD3 ASCII rules (letters, digits, hyphen), DNS length limits.
var idnaProfile = idna.New(
	idna.MapForLookup(), idna.BidiRule(), idna.ValidateLabels(true),
	idna.StrictDomainName(true), idna.VerifyDNSLength(true), idna.Transitional(false),
)

// endsInNumber is the WHATWG URL "ends in a number" check: a host whose
// last label is decimal digits or 0x-hex is an IPv4 address to a browser or
// to inet_aton (127.1, 0x7f.1, 2130706433, 0177.0.0.1), never a domain.
func endsInNumber(host string) bool {
	last := host[strings.LastIndex(host, ".")+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		last = last[2:]
		return strings.Trim(last, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}
