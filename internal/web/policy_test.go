package web_test

import (
	"errors"
	"strings"
	"testing"

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
