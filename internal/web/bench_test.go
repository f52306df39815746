package web_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkFetchRaw fetches a 1 MiB text page through the whole pipeline;
// BenchmarkPlainGet is the reference (make bench prints both side by side).
func BenchmarkFetchRaw(b *testing.B) {
	body := strings.Repeat("<p>some text</p>\n", 1<<20/17)
	s := newServer(&testing.T{}, serveText("text/html; charset=utf-8", body))
	defer s.Close()
	_, n := testNet()
	cfg := testConfig()
	cfg.FetchMaxBytes = 2 << 20
	f := newFetcher(&testing.T{}, cfg, n)
	b.Run("fetch", func(b *testing.B) {
		for b.Loop() {
			if _, err := f.Fetch(context.Background(), s.at("site.test", "/"), "raw"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			resp, err := http.Get(s.URL)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
	})
}
