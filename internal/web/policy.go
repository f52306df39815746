package web

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"unicode/utf8"
)

// ErrDomainRefused is wrapped by every domain-policy refusal.
var ErrDomainRefused = errors.New("domain refused by policy")

// DomainError is a host refused by the domain policy.
type DomainError struct {
	Host   string
	Reason string
}

func (e *DomainError) Error() string { return fmt.Sprintf("%s is not allowed: %s", e.Host, e.Reason) }

func (e *DomainError) Unwrap() error { return ErrDomainRefused }

// Policy is the domain policy of tools-spec "Domain policy": an entry
// matches its exact host and every subdomain (example.com covers
// docs.example.com), blocked wins over allowed, and an empty allow-list
// allows every host. It works on names only, before any DNS.
type Policy struct {
	Allowed []string // canonical: lowercase ASCII, no trailing dot
	Blocked []string
	// AllowedVar and BlockedVar name where the lists came from, for errors.
	AllowedVar, BlockedVar string
}

// NewPolicy canonicalises the lists: entries are trimmed of surrounding
// white space, lowercased, their trailing dot dropped, IDNs converted to
// punycode; empty entries are ignored. Since an entry always covers its
// subdomains, the other lists' spellings of "and its subdomains" mean the
// same here: "*.example.com" (wildcards) and ".example.com" (cookies,
// NO_PROXY) are example.com. A scheme or path pasted into an entry
// ("https://x.com/") is reduced to its host. An entry that is no valid host
// is returned as an error naming it.
func NewPolicy(allowed, blocked []string, allowedVar, blockedVar string) (Policy, error) {
	a, err := canonicalDomains(allowed, allowedVar)
	if err != nil {
		return Policy{}, err
	}
	b, err := canonicalDomains(blocked, blockedVar)
	if err != nil {
		return Policy{}, err
	}
	return Policy{Allowed: a, Blocked: b, AllowedVar: allowedVar, BlockedVar: blockedVar}, nil
}

func canonicalDomains(list []string, from string) ([]string, error) {
	var out []string
	for _, entry := range list {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		d := entry
		if strings.Contains(d, "://") {
			if u, err := url.Parse(d); err == nil && u.Hostname() != "" {
				d = u.Hostname()
			}
		}
		d = trimSubdomainMark(d)
		h, _, err := canonicalHost(strings.Trim(d, "[]"), strings.HasPrefix(d, "["))
		if err != nil {
			return nil, fmt.Errorf("%s: entry %q: %v", from, entry, err)
		}
		out = append(out, h)
	}
	return out, nil
}

// trimSubdomainMark drops one leading "*." or "." from an entry. The dot
// may be any full stop the IDNA mapping reads as one (。．｡), as in the rest
// of the name; "..x" keeps a dot and stays invalid, and "*x" is no mark.
func trimSubdomainMark(d string) string {
	rest := strings.TrimPrefix(d, "*")
	if r, size := utf8.DecodeRuneInString(rest); isFullStop(r) {
		return rest[size:]
	}
	return d
}

// isFullStop reports the characters UTS #46 maps to a label separator.
func isFullStop(r rune) bool {
	return r == '.' || r == '\u3002' || r == '\uff0e' || r == '\uff61'
}

// Check refuses a canonical host that is blocked or, with a non-empty
// allow-list, not allowed.
func (p Policy) Check(host string) error {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if d, ok := matchDomain(host, p.Blocked); ok {
		return &DomainError{Host: host, Reason: fmt.Sprintf("it matches %q in %s", d, p.BlockedVar)}
	}
	if len(p.Allowed) > 0 {
		if _, ok := matchDomain(host, p.Allowed); !ok {
			return &DomainError{Host: host, Reason: fmt.Sprintf("it is not in %s (%s)", p.AllowedVar, strings.Join(p.Allowed, ", "))}
		}
	}
	return nil
}

// CheckURL applies Check to the host of an absolute URL; a URL without a
// parseable host is refused.
func (p Policy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return &DomainError{Host: raw, Reason: "it is not an absolute http(s) URL"}
	}
	host, _, err := canonicalHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if err != nil {
		return &DomainError{Host: u.Hostname(), Reason: err.Error()}
	}
	return p.Check(host)
}

// matchDomain reports the first entry that is host or a parent domain of it.
// An IP literal matches only itself.
func matchDomain(host string, list []string) (string, bool) {
	_, err := netip.ParseAddr(host)
	isName := err != nil
	for _, d := range list {
		if host == d || (isName && strings.HasSuffix(host, "."+d)) {
			return d, true
		}
	}
	return "", false
}
