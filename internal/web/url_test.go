package web_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/web"
)

func TestParseURL(t *testing.T) {
	type want struct{ URL, Host, Port, IP string }
	ok := []struct {
		in   string
		want want
	}{
		{"https://example.com/a?b=c#frag", want{"https://example.com/a?b=c", "example.com", "443", ""}},
		{"HTTP://Example.COM./", want{"http://example.com/", "example.com", "80", ""}},
		{"  https://example.com  ", want{"https://example.com", "example.com", "443", ""}},
		{"https://example.com:8443/x", want{"https://example.com:8443/x", "example.com", "8443", ""}},
		{"http://93.184.216.34/", want{"http://93.184.216.34/", "93.184.216.34", "80", "93.184.216.34"}},
		{"http://[2606:4700::1111]:8080/", want{"http://[2606:4700::1111]:8080/", "2606:4700::1111", "8080", "2606:4700::1111"}},
		{"http://[::ffff:7f00:1]/", want{"http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1", "80", "::ffff:127.0.0.1"}},
		// IDNs become punycode; punycode stays.
		{"https://bücher.example/", want{"https://xn--bcher-kva.example/", "xn--bcher-kva.example", "443", ""}},
		{"https://xn--bcher-kva.example/", want{"https://xn--bcher-kva.example/", "xn--bcher-kva.example", "443", ""}},
		{"https://ＥＸＡＭＰＬＥ.com/", want{"https://example.com/", "example.com", "443", ""}}, // fullwidth mapped (UTS #46)
		// The other full stops are dots, the root label one too.
		{"https://docs\u3002example.com\uff0e/", want{"https://docs.example.com/", "docs.example.com", "443", ""}},
		{"https://example.com\uff61/", want{"https://example.com/", "example.com", "443", ""}},
		// Encoded spaces are fine; raw ones are not.
		{"https://example.com/a%20b", want{"https://example.com/a%20b", "example.com", "443", ""}},
	}
	for _, c := range ok {
		tg, err := web.ParseURL(c.in)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", c.in, err)
			continue
		}
		got := want{tg.URL.String(), tg.Host, tg.Port, ""}
		if tg.IP.IsValid() {
			got.IP = tg.IP.String()
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("ParseURL(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestParseURLRefusals(t *testing.T) {
	cases := []struct{ in, reason string }{
		{"", "empty"},
		{"ftp://example.com/", `only http and https URLs can be fetched, not "ftp"`},
		{"file:///etc/passwd", `not "file"`},
		{"gopher://127.0.0.1:25/", `not "gopher"`},
		{"javascript:alert(1)", `not "javascript"`},
		{"example.com/path", `not ""`},
		{"//example.com/", `not ""`},
		{"http:example.com", "write the URL as http://host/path"},
		{"http:/example.com", "write the URL as http://host/path"},
		{"http://", "no host"},
		{"http:///path", "no host"},
		{"https://" + strings.Repeat("a", 2048) + ".com/", "the limit is 2048"},
		// userinfo tricks
		{"http://user:pass@example.com/", "credentials"},
		{"http://a@b@c/", "credentials"},
		{"http://example.com@127.0.0.1/", "credentials"},
		{"http://:@example.com/", "credentials"},
		// backslashes, whitespace, control characters
		{`http://evil.com\@good.com/`, "backslash at byte 15"},
		{`http://good.com\.evil.com/`, "backslash"},
		{"http://example.com/a b", "whitespace at byte 20"},
		{"http://exa mple.com/", "whitespace"},
		{"http://example.com/\x00", "control character U+0000"},
		{"http://example.com\r\nHost: x/", "control character U+000D"},
		{"http://example.com/\t", "control character U+0009"},
		{"http://example.com/\x7f", "control character U+007F"},
		{"http://example.com/\u0085", "control character U+0085"},
		{"http://example.com/\u00a0x", "whitespace"},
		{"http://example.com/\xff", "not valid UTF-8"},
		// IPv6 zones and bad literals
		{"http://[fe80::1%25eth0]/", "zone identifiers"},
		{"http://[fe80::1%eth0]/", "invalid URL"},
		{"http://[127.0.0.1]/", "invalid IP-literal"},
		{"http://%31%32%37.0.0.1/", "invalid URL escape"},
		{"http://[::1/", "invalid URL"},
		// non-canonical IPv4 spellings that inet_aton and browsers accept
		{"http://127.1/", "non-standard spelling"},
		{"http://0x7f.0.0.1/", "non-standard spelling"},
		{"http://0x7f000001/", "non-standard spelling"},
		{"http://2130706433/", "non-standard spelling"},
		{"http://0177.0.0.1/", "non-standard spelling"},
		{"http://017700000001/", "non-standard spelling"},
		{"http://127.0.0.1.1/", "non-standard spelling"},
		// invalid IDNs and punycode, bad names
		{"http://xn--a/", "not a valid domain name"},
		{"http://xn--zz-zzzzzzzzzz.com/", "not a valid domain name"},
		{"http://a..b/", "not a valid domain name"},
		{"http://-bad.com/", "not a valid domain name"},
		{"http://ex_ample.com/", "not a valid domain name"},
		{"http://" + strings.Repeat("a", 64) + ".com/", "not a valid domain name"},
		{"http://example.com\u202e/", "not a valid domain name"},
		// ports
		{"http://example.com:0/", "port \"0\" is not in 1..65535"},
		{"http://example.com:65536/", "not in 1..65535"},
		{"http://example.com:99999999999999999999/", "not in 1..65535"},
		{"http://example.com:-1/", "invalid URL"},
		{"http://example.com:http/", "invalid URL"},
	}
	for _, c := range cases {
		_, err := web.ParseURL(c.in)
		if err == nil {
			t.Errorf("ParseURL(%q) accepted", c.in)
			continue
		}
		if !errors.Is(err, web.ErrBadURL) {
			t.Errorf("ParseURL(%q) = %v; does not wrap ErrBadURL", c.in, err)
		}
		if !strings.Contains(err.Error(), c.reason) {
			t.Errorf("ParseURL(%q) = %q; want it to contain %q", c.in, err, c.reason)
		}
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"https://example.com/", "http://[::1]:80/", "http://a@b@c/", `http://a\b/`, "http://bücher.de/",
		"http://127.1/", "http://[fe80::1%25eth0]/", "HTTP://X.Y./?q#f", "http://xn--bcher-kva.example/",
		"http://x.y\uff0e/", "http://x\u3002\u3002/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := web.ParseURL(s)
		if err != nil {
			if !errors.Is(err, web.ErrBadURL) {
				t.Fatalf("error %v does not wrap ErrBadURL", err)
			}
			return
		}
		// An accepted URL is canonical: re-parsing its string yields the
		// same target (what is checked is what is fetched).
		again, err := web.ParseURL(tg.URL.String())
		if err != nil {
			t.Fatalf("ParseURL(%q) accepted, but its canonical form %q is refused: %v", s, tg.URL, err)
		}
		if again.Host != tg.Host || again.Port != tg.Port || again.URL.String() != tg.URL.String() {
			t.Fatalf("not idempotent: %q → %q (%s:%s) → %q (%s:%s)", s, tg.URL, tg.Host, tg.Port, again.URL, again.Host, again.Port)
		}
		if tg.URL.User != nil || strings.ContainsAny(tg.URL.String(), "\\ \t\r\n") {
			t.Fatalf("accepted a URL with credentials or odd characters: %q", tg.URL)
		}
		if tg.Host != strings.ToLower(tg.Host) || strings.HasSuffix(tg.Host, ".") || tg.Host == "" {
			t.Fatalf("host not canonical: %q", tg.Host)
		}
	})
}
