package web_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/web"
)

const page = `<!doctype html><html><head><title>T</title><style>p{}</style><script>alert(1)</script></head>
<body><h1>Hello</h1><p>Some <b>bold</b> text and <a href="/docs">a link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>`

func TestFetchFormats(t *testing.T) {
	s := newServer(t, serveText("text/html; charset=utf-8", page))
	_, n := testNet()
	f := newFetcher(t, testConfig(), n)
	url := s.at("site.test", "/page")
	want := map[string]string{
		"":         "# Hello\n\nSome **bold** text and [a link](http://site.test:" + s.port + "/docs).\n\n- one\n- two",
		"markdown": "# Hello\n\nSome **bold** text and [a link](http://site.test:" + s.port + "/docs).\n\n- one\n- two",
		"text":     "Hello\n\nSome bold text and a link.\n\none\n\ntwo",
		"raw":      page,
	}
	for format, content := range want {
		p, err := fetch(t, f, url, format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		got := web.Page{URL: url, FinalURL: url, Status: 200, ContentType: "text/html; charset=utf-8", Bytes: int64(len(page)), Content: content}
		if diff := cmp.Diff(got, *p); diff != "" {
			t.Errorf("format %q (-want +got):\n%s", format, diff)
		}
	}
}

func TestFetchTextTypes(t *testing.T) {
	cases := []struct {
		ct, body string
		refused  string
	}{
		{"text/plain", "plain *text*", ""},
		{"application/json", `{"a":1}`, ""},
		{"application/ld+json", `{}`, ""},
		{"image/svg+xml", `<svg/>`, ""},
		{"text/markdown; charset=utf-8", "# md", ""},
		{"image/png", "\x89PNG\r\n\x1a\n", "web_fetch reads text only and this response is image/png"},
		{"application/pdf", "%PDF-1.4", "application/pdf"},
		{"application/octet-stream", "x", "application/octet-stream"},
		{"", "just some words", ""},
		{"", "\x89PNG\r\n\x1a\n\x00\x00\x00", "image/png (sniffed"},
		{"", "\x00\x01\x02\x03binary", "application/octet-stream (sniffed"},
	}
	for _, c := range cases {
		s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header()["Content-Type"] = nil
			if c.ct != "" {
				w.Header().Set("Content-Type", c.ct)
			}
			_, _ = w.Write([]byte(c.body))
		}))
		_, n := testNet()
		p, err := fetch(t, newFetcher(t, testConfig(), n), s.at("site.test", "/"), "")
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%q: %v", c.ct, err)
		case c.refused == "" && p.Content != c.body:
			t.Errorf("%q: content %q", c.ct, p.Content)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%q: got %v; want %q", c.ct, err, c.refused)
		case c.refused != "":
			// The web package names no tool: the tools layer knows which
			// exist in this session and adds how to download.
			var ce *web.ContentError
			if !errors.As(err, &ce) || !ce.Download || ce.Encoding != "" || strings.Contains(err.Error(), "bash") {
				t.Errorf("%q: %#v; want a ContentError to download, naming no tool", c.ct, err)
			}
		}
	}
}

func TestFetchRedirects(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a":
			http.Redirect(w, r, "/b", http.StatusMovedPermanently)
		case "/b":
			http.Redirect(w, r, "http://site.test:"+r.Host[strings.LastIndex(r.Host, ":")+1:]+"/c?x=1", http.StatusSeeOther)
		case "/c":
			_, _ = w.Write([]byte("final " + r.URL.RawQuery))
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusTemporaryRedirect)
		case "/cross":
			http.Redirect(w, r, "http://other.test:1234/x", http.StatusFound)
		case "/scheme":
			http.Redirect(w, r, "https://site.test/x", http.StatusFound)
		case "/private":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/creds":
			w.Header().Set("Location", "http://user:pw@site.test/")
			w.WriteHeader(http.StatusFound)
		case "/file":
			w.Header().Set("Location", "file:///etc/passwd")
			w.WriteHeader(http.StatusFound)
		case "/nolocation":
			w.WriteHeader(http.StatusFound)
			_, _ = w.Write([]byte("no location"))
		}
	}))
	_, n := testNet()
	f := newFetcher(t, testConfig(), n)

	p, err := fetch(t, f, s.at("site.test", "/a"), "")
	if err != nil || p.Content != "final x=1" || p.FinalURL != s.at("site.test", "/c?x=1") || p.URL != s.at("site.test", "/a") {
		t.Errorf("same-origin chain: %+v, %v", p, err)
	}
	var se *web.StatusError
	if p, err = fetch(t, f, s.at("site.test", "/nolocation"), ""); !errors.As(err, &se) || p != nil {
		t.Errorf("redirect without Location: %+v, %v; want a StatusError", p, err)
	}
	var re *web.RedirectError
	for path, to := range map[string]string{
		"/cross":   "http://other.test:1234/x",
		"/scheme":  "https://site.test/x",
		"/private": "http://169.254.169.254/latest/meta-data/",
	} {
		_, err = fetch(t, f, s.at("site.test", path), "")
		if !errors.As(err, &re) || re.To != to {
			t.Errorf("%s: got %v; want a cross-origin report to %s", path, err, to)
		}
	}
	var rl *web.RedirectLimitError
	if _, err = fetch(t, f, s.at("site.test", "/loop"), ""); !errors.As(err, &rl) || rl.Limit != 5 ||
		!strings.Contains(err.Error(), "more than 5 (STEERABLE_WEB_FETCH_MAX_REDIRECTS)") {
		t.Errorf("loop: %v", err)
	}
	for _, path := range []string{"/creds", "/file"} {
		if _, err = fetch(t, f, s.at("site.test", path), ""); !errors.Is(err, web.ErrBadURL) {
			t.Errorf("%s: got %v; want the Location refused", path, err)
		}
	}
	cfg := testConfig()
	cfg.FetchMaxRedirects = 0
	if _, err = fetch(t, newFetcher(t, cfg, n), s.at("site.test", "/a"), ""); !errors.As(err, &rl) {
		t.Errorf("max 0: %v", err)
	}
}

// TestFetchRedirectPolicy: a same-origin hop is checked against the domain
// policy again (a no-op for the same host, but re-validated per hop).
func TestFetchPolicyBeforeDNS(t *testing.T) {
	resolver, n := testNet()
	cfg := testConfig()
	cfg.BlockedDomains = []string{"site.test"}
	cfg.AllowedDomains = []string{"allowed.test"}
	f := newFetcher(t, cfg, n)
	for _, url := range []string{"http://site.test/", "http://sub.site.test/", "http://other.test/"} {
		if _, err := fetch(t, f, url, ""); !errors.Is(err, web.ErrDomainRefused) {
			t.Errorf("%s: %v", url, err)
		}
	}
	if resolver.Lookups("site.test")+resolver.Lookups("other.test") != 0 {
		t.Errorf("the domain policy ran after DNS")
	}
}

func TestFetchByteCap(t *testing.T) {
	endless := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := bytes.Repeat([]byte("x"), 4096)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	s := newServer(t, endless)
	_, n := testNet()
	cfg := testConfig()
	cfg.FetchMaxBytes = 100_000
	p, err := fetch(t, newFetcher(t, cfg, n), s.at("site.test", "/"), "")
	if err != nil || !p.Truncated || p.Bytes != 100_000 || len(p.Content) != 100_000 {
		t.Fatalf("endless body: truncated=%v bytes=%d err=%v", p != nil && p.Truncated, len(p.Content), err)
	}
	exact := newServer(t, serveText("text/plain", strings.Repeat("y", 100_000)))
	p, err = fetch(t, newFetcher(t, cfg, n), exact.at("site.test", "/"), "")
	if err != nil || p.Truncated || p.Bytes != 100_000 {
		t.Errorf("body of exactly the cap: %+v %v", p.Truncated, err)
	}
}

// TestFetchGzipBomb: 256 MiB of zeros in about 256 KiB of gzip (one
// member for 1 MiB, repeated: gzip readers decode concatenated members) is
// read only up to the cap, after decompression.
func TestFetchGzipBomb(t *testing.T) {
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	_, _ = zw.Write(make([]byte, 1<<20))
	_ = zw.Close()
	bomb := bytes.Repeat(member.Bytes(), 256)
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb)
	}))
	_, n := testNet()
	cfg := testConfig()
	cfg.FetchMaxBytes = 200_000
	p, err := fetch(t, newFetcher(t, cfg, n), s.at("site.test", "/"), "")
	if err != nil || !p.Truncated || p.Bytes != 200_000 {
		t.Fatalf("gzip bomb: %v %v", p, err)
	}
	br := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "br")
		_, _ = w.Write([]byte{0x1b, 0x03})
	}))
	_, err = fetch(t, newFetcher(t, cfg, n), br.at("site.test", "/"), "")
	var ce *web.ContentError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `"br"-encoded`) || !ce.Download || ce.Encoding != "br" {
		t.Errorf("br body: %#v", err)
	}
}

func TestFetchTimeouts(t *testing.T) {
	slowloris := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for r.Context().Err() == nil {
			_, _ = w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
		}
	})
	slowHeaders := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	_, n := testNet()
	cfg := testConfig()
	cfg.FetchTimeout = 300 * time.Millisecond
	for name, h := range map[string]http.Handler{"slow body": slowloris, "slow headers": slowHeaders} {
		s := newServer(t, h)
		start := time.Now()
		_, err := fetch(t, newFetcher(t, cfg, n), s.at("site.test", "/"), "")
		var te *web.TimeoutError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "timed out after 300ms (STEERABLE_WEB_FETCH_TIMEOUT_MS)") {
			t.Errorf("%s: %v", name, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
		if name == "slow body" && te != nil && te.Received == 0 {
			t.Errorf("slow body: received count not reported")
		}
	}
}

// rawServer answers every request with a fixed raw HTTP response.
func rawServer(t *testing.T, response string) *server {
	return newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		_, _ = buf.WriteString(response)
		_ = buf.Flush()
		conn.Close()
	}))
}

func TestFetchWrongContentLength(t *testing.T) {
	_, n := testNet()
	f := newFetcher(t, testConfig(), n)
	short := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly this")
	if _, err := fetch(t, f, short.at("site.test", "/"), ""); err == nil || !strings.Contains(err.Error(), "announced 100 bytes (Content-Length) but closed the connection after 9") {
		t.Errorf("short body: %v", err)
	}
	long := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nfour and more")
	if p, err := fetch(t, f, long.at("site.test", "/"), ""); err != nil || p.Content != "four" {
		t.Errorf("long body: %+v %v", p, err)
	}
	bad := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nfour")
	if _, err := fetch(t, f, bad.at("site.test", "/"), ""); err == nil || !strings.Contains(err.Error(), "Content-Length") {
		t.Errorf("conflicting lengths: %v", err)
	}
	neg := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: -5\r\n\r\nfour")
	if _, err := fetch(t, f, neg.at("site.test", "/"), ""); err == nil {
		t.Errorf("negative length accepted")
	}
}

func TestFetchCharsets(t *testing.T) {
	cases := []struct {
		ct, body, want, warning string
	}{
		{"text/plain; charset=iso-8859-1", "caf\xe9", "café", ""},
		{"text/plain; charset=windows-1251", "\xcf\xf0\xe8\xe2\xe5\xf2", "Привет", ""},
		{"text/plain; charset=shift_jis", "\x82\xb1\x82\xf1", "こん", ""},
		{"text/plain; charset=utf-8", "ok \xff bad", "ok \uFFFD bad", "not valid UTF-8 although it declares charset utf-8"},
		{"text/plain; charset=klingon", "plain", "plain", ""},
		{"text/plain; charset=klingon", "bad \xff", "bad \uFFFD", `unknown charset "klingon"`},
		{"text/plain", "\xef\xbb\xbfbom", "bom", ""},
		{"text/plain", "caf\xe9", "café", "decoded as windows-1252"},
		{"text/html", `<meta charset="iso-8859-1"><p>caf` + "\xe9", "café", "decoded as windows-1252"},
		{"text/plain; charset=\"utf-16le\"", "h\x00i\x00", "hi", ""},
	}
	for _, c := range cases {
		s := newServer(t, serveText(c.ct, c.body))
		_, n := testNet()
		p, err := fetch(t, newFetcher(t, testConfig(), n), s.at("site.test", "/"), "")
		if err != nil {
			t.Errorf("%q: %v", c.ct, err)
			continue
		}
		if p.Content != c.want {
			t.Errorf("%q %q: content %q; want %q", c.ct, c.body, p.Content, c.want)
		}
		if got := strings.Join(p.Warnings, "; "); !strings.Contains(got, c.warning) || (c.warning == "" && got != "") {
			t.Errorf("%q %q: warnings %q; want %q", c.ct, c.body, got, c.warning)
		}
	}
}

// TestFetchTruncatedMidRune: the cap cutting a multi-byte character leaves
// no replacement character behind.
func TestFetchTruncatedMidRune(t *testing.T) {
	s := newServer(t, serveText("text/plain; charset=utf-8", strings.Repeat("é", 100)))
	_, n := testNet()
	cfg := testConfig()
	cfg.FetchMaxBytes = 11
	p, err := fetch(t, newFetcher(t, cfg, n), s.at("site.test", "/"), "")
	if err != nil || p.Content != strings.Repeat("é", 5) || !p.Truncated || len(p.Warnings) != 0 {
		t.Errorf("got %+v %v", p, err)
	}
}

func TestFetchDeepHTML(t *testing.T) {
	deep := strings.Repeat("<div>", 200_000) + "bottom" + strings.Repeat("</div>", 200_000)
	s := newServer(t, serveText("text/html", deep))
	_, n := testNet()
	cfg := testConfig()
	cfg.FetchMaxBytes = 10 << 20
	p, err := fetch(t, newFetcher(t, cfg, n), s.at("site.test", "/"), "markdown")
	if err != nil || p.Content != "bottom" || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "exceeds 512 nodes); converted to plain text") {
		t.Errorf("got %v %v", p.Warnings, err)
	}
}

func TestFetchStatus(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("no such page"))
	}))
	_, n := testNet()
	p, err := fetch(t, newFetcher(t, testConfig(), n), s.at("site.test", "/"), "")
	if err != nil || p.Status != 404 || p.Content != "no such page" {
		t.Errorf("got %+v %v", p, err)
	}
}

func TestFetchCap(t *testing.T) {
	s := newServer(t, serveText("text/plain", "ok"))
	_, n := testNet()
	cfg := testConfig()
	cfg.SessionFetchCap = 2
	f := newFetcher(t, cfg, n)
	// Refused before admission: does not count.
	if _, err := fetch(t, f, "ftp://site.test/", ""); !errors.Is(err, web.ErrBadURL) {
		t.Fatal(err)
	}
	// Admitted, then failing: counts.
	if _, err := fetch(t, f, "http://nowhere.test/", ""); err == nil {
		t.Fatal("nowhere.test resolved")
	}
	if _, err := fetch(t, f, s.at("site.test", "/"), ""); err != nil {
		t.Fatal(err)
	}
	_, err := fetch(t, f, s.at("site.test", "/"), "")
	if !errors.Is(err, web.ErrCapReached) || !strings.Contains(err.Error(), "limit of 2 web_fetch calls (STEERABLE_WEB_SESSION_FETCH_CAP)") {
		t.Errorf("third call: %v", err)
	}
}

func TestFetchEgressConfinedWithoutProxy(t *testing.T) {
	_, n := testNet()
	cfg := testConfig()
	cfg.EgressConfined = true
	f := newFetcher(t, cfg, n)
	for _, url := range []string{"http://site.test/", "not even a URL"} {
		if _, err := fetch(t, f, url, ""); !errors.Is(err, web.ErrEgressMisconfigured) || !strings.Contains(err.Error(), "set HTTPS_PROXY") {
			t.Errorf("%s: %v", url, err)
		}
	}
	if f.EgressProblem() == nil {
		t.Errorf("EgressProblem is nil")
	}
}

// TestFetchConcurrent runs fetches in parallel under -race.
func TestFetchConcurrent(t *testing.T) {
	s := newServer(t, serveText("text/html", page))
	_, n := testNet()
	f := newFetcher(t, testConfig(), n)
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			_, err := fetch(t, f, s.at("site.test", fmt.Sprintf("/%d", i)), "")
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestFetchRedirectionWithoutPage: a 3xx that web_fetch cannot follow is an
// error naming the status and what is missing, never a page (a 302
// without Location, a 304 or a 300 is not a success with the redirect's
// body as content).
func TestFetchRedirectionWithoutPage(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if loc, ok := q["loc"]; ok {
			w.Header()["Location"] = loc // set raw: blanks and relative forms as sent
		}
		code, _ := strconv.Atoi(q.Get("code"))
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(code)
		_, _ = w.Write([]byte("<p>choose one</p>"))
	}))
	_, n := testNet()
	f := newFetcher(t, testConfig(), n)
	base := s.at("site.test", "/")
	tests := []struct {
		query string
		want  string // substring of the error
	}{
		{"code=301", "answered HTTP 301 (Moved Permanently) without a Location header"},
		{"code=302", "answered HTTP 302 (Found) without a Location header: it redirects but does not say where"},
		{"code=303", "HTTP 303 (See Other) without a Location header"},
		{"code=307", "HTTP 307 (Temporary Redirect) without a Location header"},
		{"code=308", "HTTP 308 (Permanent Redirect) without a Location header"},
		{"code=302&loc=%20%09%20", "HTTP 302 (Found) without a Location header"}, // blank is absent
		{"code=302&loc=", "HTTP 302 (Found) without a Location header"},
		{"code=300", "HTTP 300 (Multiple Choices): it offers several representations instead of a page and names none"},
		{"code=300&loc=/en", "its preferred one is " + s.at("site.test", "/en") + ": call web_fetch with that URL"},
		{"code=300&loc=http://other.test/x", "its preferred one is http://other.test/x"},
		{"code=304", "HTTP 304 (Not Modified) although web_fetch sent no conditional request"},
		{"code=304&loc=/elsewhere", "HTTP 304 (Not Modified)"},
		{"code=305&loc=/proxy", "HTTP 305 (Use Proxy), a redirection web_fetch cannot follow"},
		{"code=306", "HTTP 306, a redirection web_fetch cannot follow"},
		{"code=399&loc=/x", "HTTP 399, a redirection web_fetch cannot follow"},
	}
	for _, tc := range tests {
		url := base + "?" + tc.query
		p, err := fetch(t, f, url, "")
		var se *web.StatusError
		switch {
		case p != nil:
			t.Errorf("%s: returned a page (status %d, %q); want an error", tc.query, p.Status, p.Content)
		case !errors.As(err, &se):
			t.Errorf("%s: got %v; want a StatusError", tc.query, err)
		case !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), url+" answered"):
			t.Errorf("%s: error %q; want it to start with the URL and contain %q", tc.query, err, tc.want)
		case web.Kind(err) != "redirect_status":
			t.Errorf("%s: kind %q", tc.query, web.Kind(err))
		}
	}
	// Every refusal drained and reused its connection.
	if c := s.conns.Load(); c != 1 {
		t.Errorf("%d connections for %d requests; want 1 (kept alive)", c, len(tests))
	}
}
