package web_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/web"
)

func TestPolicy(t *testing.T) {
	cases := []struct {
		name             string
		allowed, blocked []string
		host             string
		refused          string // substring of the refusal; "" = allowed
	}{
		{"empty lists allow all", nil, nil, "anything.example", ""},
		{"exact allowed", []string{"example.com"}, nil, "example.com", ""},
		{"subdomain allowed", []string{"example.com"}, nil, "docs.example.com", ""},
		{"deep subdomain allowed", []string{"example.com"}, nil, "a.b.example.com", ""},
		{"suffix is not a subdomain", []string{"example.com"}, nil, "badexample.com", "not in STEERABLE_WEB_ALLOWED_DOMAINS (example.com)"},
		{"parent of allowed is not allowed", []string{"docs.example.com"}, nil, "example.com", "not in"},
		{"other host", []string{"example.com"}, nil, "example.org", "not in"},
		{"blocked exact", nil, []string{"evil.com"}, "evil.com", `matches "evil.com" in STEERABLE_WEB_BLOCKED_DOMAINS`},
		{"blocked subdomain", nil, []string{"evil.com"}, "cdn.evil.com", "matches"},
		{"blocked wins over allowed", []string{"example.com"}, []string{"example.com"}, "example.com", "BLOCKED"},
		{"blocked subdomain inside allowed", []string{"example.com"}, []string{"private.example.com"}, "x.private.example.com", "BLOCKED"},
		{"entries canonicalised", []string{" Example.COM. "}, nil, "docs.example.com", ""},
		{"host canonicalised", []string{"example.com"}, nil, "DOCS.Example.com.", ""},
		{"IDN entry matches punycode host", []string{"bücher.example"}, nil, "xn--bcher-kva.example", ""},
		{"wildcard entry", []string{"*.example.com"}, nil, "a.example.com", ""},
		{"URL pasted as entry", []string{"https://example.com/docs"}, nil, "example.com", ""},
		{"empty entries ignored", []string{"", " "}, nil, "example.org", ""},
		{"IP entry exact only", []string{"93.184.216.34"}, nil, "93.184.216.34", ""},
		{"IP entry no suffix match", nil, []string{"0.0.34"}, "93.184.216.34", "invalid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := web.NewPolicy(c.allowed, c.blocked, "STEERABLE_WEB_ALLOWED_DOMAINS", "STEERABLE_WEB_BLOCKED_DOMAINS")
			if err != nil {
				if c.refused == "invalid" {
					return
				}
				t.Fatal(err)
			}
			err = p.Check(c.host)
			switch {
			case c.refused == "" && err != nil:
				t.Errorf("Check(%q) = %v; want allowed", c.host, err)
			case c.refused != "" && err == nil:
				t.Errorf("Check(%q) allowed; want refused (%s)", c.host, c.refused)
			case err != nil && !strings.Contains(err.Error(), c.refused):
				t.Errorf("Check(%q) = %q; want it to contain %q", c.host, err, c.refused)
			case err != nil && !errors.Is(err, web.ErrDomainRefused):
				t.Errorf("error does not wrap ErrDomainRefused")
			}
		})
	}
}

func TestPolicyBadEntry(t *testing.T) {
	_, err := web.NewPolicy([]string{"ok.com", "bad_host"}, nil, "STEERABLE_WEB_ALLOWED_DOMAINS", "B")
	if err == nil || !strings.Contains(err.Error(), `STEERABLE_WEB_ALLOWED_DOMAINS: entry "bad_host"`) {
		t.Errorf("got %v", err)
	}
}

func TestPolicyCheckURL(t *testing.T) {
	p, _ := web.NewPolicy([]string{"example.com"}, []string{"ads.example.com"}, "A", "B")
	for url, ok := range map[string]bool{
		"https://docs.example.com/x":   true,
		"https://ads.example.com/x":    false,
		"https://example.org/":         false,
		"javascript:alert(1)":          false,
		"not a url":                    false,
		"ftp://example.com/":           false,
		"https://EXAMPLE.com./path?q=": true,
	} {
		if err := p.CheckURL(url); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v; want ok=%v", url, err, ok)
		}
	}
}

// TestPolicyEntrySpellings: the list spellings a user pastes from other
// tools ('example.com, .docs.python.org ' must not drop both web tools).
// want is the canonical list, or refused is a substring of the error, which
// names the entry as written.
func TestPolicyEntrySpellings(t *testing.T) {
	cases := []struct {
		name    string
		entries []string
		want    []string
		refused string
	}{
		{"leading dot", []string{".docs.python.org"}, []string{"docs.python.org"}, ""},
		{"pasted list", []string{"example.com", " .docs.python.org "}, []string{"example.com", "docs.python.org"}, ""},
		{"tabs and newlines", []string{"\t.Example.COM.\n"}, []string{"example.com"}, ""},
		{"unicode spaces", []string{"\u00a0example.com\u3000", "\u2003.example.org\u2009"}, []string{"example.com", "example.org"}, ""},
		{"invisible characters ignored by IDNA", []string{"\u200bexample.com", "\ufeffexample.org"}, []string{"example.com", "example.org"}, ""},
		{"fullwidth leading dot", []string{"\uff0edocs.python.org"}, []string{"docs.python.org"}, ""},
		{"ideographic leading dot", []string{"\u3002example.jp"}, []string{"example.jp"}, ""},
		{"fullwidth trailing dot", []string{"example.com\uff0e"}, []string{"example.com"}, ""},
		{"ideographic trailing dot, uppercase", []string{"EXAMPLE.com\u3002"}, []string{"example.com"}, ""},
		{"wildcard", []string{" *.Example.COM "}, []string{"example.com"}, ""},
		{"wildcard with fullwidth dot", []string{"*\uff0eexample.com"}, []string{"example.com"}, ""},
		{"IDN with leading dot", []string{".Bücher.example"}, []string{"xn--bcher-kva.example"}, ""},
		{"URL with leading-dot host", []string{"https://.example.com/"}, []string{"example.com"}, ""},
		{"empty entries ignored", []string{"", " ", "\t", "example.com", ""}, []string{"example.com"}, ""},
		{"two leading dots", []string{"..example.com"}, nil, `entry "..example.com"`},
		{"dot alone", []string{" . "}, nil, `entry ".": host "" has an empty label`},
		{"wildcard alone", []string{"*"}, nil, `entry "*"`},
		{"wildcard dot alone", []string{"*."}, nil, `entry "*."`},
		{"suffix wildcard is no mark", []string{"*example.com"}, nil, `entry "*example.com"`},
		{"dot then wildcard", []string{".*.example.com"}, nil, `entry ".*.example.com"`},
		{"wildcard then two dots", []string{"*..example.com"}, nil, `entry "*..example.com"`},
		{"empty inner label", []string{"example..com"}, nil, `entry "example..com"`},
		{"doubled trailing full stops", []string{"example.com\u3002\u3002"}, nil, "empty label"},
		{"space inside", []string{". example.com"}, nil, `entry ". example.com"`},
		{"port", []string{"example.com:443"}, nil, `entry "example.com:443"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, list := range []string{"allowed", "blocked"} {
				allowed, blocked := c.entries, []string(nil)
				if list == "blocked" {
					allowed, blocked = nil, c.entries
				}
				p, err := web.NewPolicy(allowed, blocked, "STEERABLE_WEB_ALLOWED_DOMAINS", "STEERABLE_WEB_BLOCKED_DOMAINS")
				if c.refused != "" {
					if err == nil || !strings.Contains(err.Error(), c.refused) {
						t.Errorf("%s: NewPolicy(%q) = %v; want an error containing %q", list, c.entries, err, c.refused)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: NewPolicy(%q): %v", list, c.entries, err)
				}
				got := p.Allowed
				if list == "blocked" {
					got = p.Blocked
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s list (-want +got):\n%s", list, diff)
				}
			}
		})
	}
}

// TestPolicyFullStopHosts: a URL host spelled with another full stop is the
// same host to the policy (a blocked entry cannot be dodged that way).
func TestPolicyFullStopHosts(t *testing.T) {
	p, err := web.NewPolicy(nil, []string{"evil.example"}, "A", "STEERABLE_WEB_BLOCKED_DOMAINS")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://evil\u3002example/", "https://cdn\uff0eevil.example\uff0e/", "https://EVIL.example\uff61/"} {
		if err := p.CheckURL(u); err == nil {
			t.Errorf("CheckURL(%q) allowed; want blocked", u)
		}
	}
}
