package tools

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/internal/web/webtest"
	"steerable.dev/sidecar/protocol"
)

func webTestConfig() web.Config {
	return web.Config{FetchTimeout: 5 * time.Second, FetchMaxBytes: 1 << 20, FetchMaxRedirects: 3,
		SearchTimeout: 5 * time.Second, SearchMaxResults: 5, SessionSearchCap: 200}
}

// webDispatcher registers the web tools over a loopback test network.
func webDispatcher(t *testing.T, cfg web.Config, provider web.Provider) *Dispatcher {
	t.Helper()
	f, err := web.NewFetcher(cfg, webtest.Net(webtest.NewResolver(map[string]string{"site.test": "127.0.0.1"})), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	deps := Deps{WebFetcher: f}
	if provider != nil {
		if deps.WebSearcher, err = web.NewSearcher(cfg, provider); err != nil {
			t.Fatal(err)
		}
	}
	return NewDispatcher(newTestRegistry(t, Builtins(deps)...), nil, zerolog.Nop())
}

func invokeWeb(d *Dispatcher, name, args string) protocol.ToolResult {
	res := d.Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{Name: name, Arguments: json.RawMessage(args)}})
	delete(res.Data, "durationMs")
	return res
}

func TestWebFetchTool(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<h1>Title</h1><p>text</p>"))
		case "/away":
			http.Redirect(w, r, "https://elsewhere.example/x", http.StatusFound)
		case "/nolocation":
			w.WriteHeader(http.StatusFound)
			_, _ = w.Write([]byte("a redirect's body"))
		case "/missing":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("gone"))
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	base := "http://site.test:" + port
	d := webDispatcher(t, webTestConfig(), nil)

	got := invokeWeb(d, "web_fetch", `{"url":"`+base+`/page"}`)
	want := protocol.ToolResult{Success: true, Message: "fetched " + base + "/page (25 bytes)", Data: map[string]any{
		"url": base + "/page", "finalUrl": base + "/page", "status": 200, "contentType": "text/html",
		"bytes": int64(25), "truncated": false, "content": "# Title\n\ntext",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}

	got = invokeWeb(d, "web_fetch", `{"url":"`+base+`/away","format":"raw"}`)
	if got.Success || !got.NeedsFollowup || got.Data["redirect_to"] != "https://elsewhere.example/x" || got.Data["kind"] != "cross_origin_redirect" {
		t.Errorf("cross-origin redirect: %+v", got)
	}

	got = invokeWeb(d, "web_fetch", `{"url":"`+base+`/nolocation"}`)
	if got.Success || !got.NeedsFollowup || got.Data["status"] != 302 || got.Data["kind"] != "redirect_status" ||
		!strings.Contains(got.Error, "HTTP 302 (Found) without a Location header") || got.Data["content"] != nil {
		t.Errorf("302 without Location: %+v", got)
	}

	got = invokeWeb(d, "web_fetch", `{"url":"`+base+`/missing"}`)
	if got.Success || !got.NeedsFollowup || got.Data["status"] != 404 || got.Data["content"] != "gone" {
		t.Errorf("404: %+v", got)
	}

	for args, kind := range map[string]string{
		`{"url":"http://10.0.0.1/"}`:                "address",
		`{"url":"http://169.254.169.254/"}`:         "address",
		`{"url":"file:///etc/passwd"}`:              "url",
		`{"url":"http://a@b@c/"}`:                   "url",
		`{"url":"http://nowhere.test/"}`:            "dns",
		`{"url":"http://site.test:` + port + `/x"}`: "",
	} {
		got = invokeWeb(d, "web_fetch", args)
		if kind != "" && (got.Success || !got.NeedsFollowup || got.Data["kind"] != kind) {
			t.Errorf("%s: %+v; want kind %s", args, got, kind)
		}
	}

	got = invokeWeb(d, "web_fetch", `{"url":"`+base+`/page","format":"pdf"}`)
	if got.Success || !strings.Contains(got.Error, "/format") {
		t.Errorf("schema: %+v", got)
	}
}

func TestWebFetchEgressTerminal(t *testing.T) {
	cfg := webTestConfig()
	cfg.EgressConfined = true
	got := invokeWeb(webDispatcher(t, cfg, nil), "web_fetch", `{"url":"https://example.com/"}`)
	if !protocol.IsTerminal(got) || !strings.Contains(got.Error, "web_fetch is unavailable: STEERABLE_EGRESS_CONFINED=1 but neither HTTPS_PROXY nor HTTP_PROXY is set") {
		t.Errorf("%+v", got)
	}
}

func TestWebToolsRegistration(t *testing.T) {
	for _, tool := range Builtins(Deps{}) {
		if name := tool.Descriptor().Name; strings.HasPrefix(name, "web_") {
			t.Errorf("%s registered without a fetcher or searcher", name)
		}
	}
	d := webDispatcher(t, webTestConfig(), &stubSearch{})
	var names []string
	for _, desc := range d.reg.Descriptors() {
		if !strings.HasPrefix(desc.Name, "web_") {
			continue // the other built-ins
		}
		names = append(names, desc.Name)
		if desc.Mode != protocol.ModeRead || desc.Exposure != protocol.ExposureDirect || desc.Source != protocol.SourceBuiltin {
			t.Errorf("%s: mode %s exposure %s source %s", desc.Name, desc.Mode, desc.Exposure, desc.Source)
		}
		var schema map[string]any
		if err := json.Unmarshal(desc.Parameters, &schema); err != nil || schema["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties must be false", desc.Name)
		}
	}
	if diff := cmp.Diff([]string{"web_fetch", "web_search"}, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
