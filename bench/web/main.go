// Command web measures web_fetch for `make bench`: the overhead of
// a fetch of a 1 MB page against a plain http.Get of the same page in the
// same run, HTML-to-Markdown throughput, and peak memory with
// fetch_max_bytes at its ceiling while the server streams endlessly. All
// traffic stays on loopback: the fetcher runs with package webtest's
// resolver and loopback-only policy.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/bench/internal/benchkit"
	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/internal/web/webtest"
)

const (
	pageSize = 1 << 20
	rounds   = 40
	ceiling  = 100_000_000 // STEERABLE_WEB_FETCH_MAX_BYTES ceiling
)

func main() {
	child := flag.String("child", "", "internal: run one peak-memory probe (fetch or readall) against URL")
	url := flag.String("url", "", "internal: the endless server")
	flag.Parse()
	if *child != "" {
		os.Exit(probe(*child, *url))
	}
	page := makePage(pageSize)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/endless" {
			endless(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, page)
	}))
	defer srv.Close()
	f := fetcher(srv.URL, 2*pageSize)
	defer f.Close()
	benchFetch(f, srv.URL)
	benchMarkdown(page)
	benchMemory(srv.URL)
}

// fetcher is a production Fetcher on the loopback test network.
func fetcher(srvURL string, maxBytes int64) *web.Fetcher {
	r := webtest.NewResolver(map[string]string{"bench.test": "127.0.0.1"})
	f, err := web.NewFetcher(web.Config{FetchTimeout: time.Minute, FetchMaxBytes: maxBytes, FetchMaxRedirects: 5},
		webtest.Net(r), zerolog.Nop())
	if err != nil {
		panic(err)
	}
	return f
}

func testURL(srvURL, path string) string {
	_, port := webtest.HostPort(srvURL)
	return "http://" + net.JoinHostPort("bench.test", port) + path
}

// benchFetch interleaves the three measurements round by round, so load on
// the machine hits them alike.
func benchFetch(f *web.Fetcher, srvURL string) {
	client := &http.Client{}
	var plain, raw, md []time.Duration
	for i := 0; i < rounds+3; i++ {
		runtime.GC() // each measurement pays for its own garbage only
		t0 := time.Now()
		resp, err := client.Get(srvURL + "/page")
		must(err)
		_, err = io.ReadAll(resp.Body)
		must(err)
		resp.Body.Close()
		dPlain := time.Since(t0)
		runtime.GC()
		t1 := time.Now()
		_, err = f.Fetch(context.Background(), testURL(srvURL, "/page"), web.FormatRaw)
		must(err)
		dRaw := time.Since(t1)
		runtime.GC()
		t2 := time.Now()
		_, err = f.Fetch(context.Background(), testURL(srvURL, "/page"), web.FormatMarkdown)
		must(err)
		dMD := time.Since(t2)
		if i >= 3 { // warm-up
			plain, raw, md = append(plain, dPlain), append(raw, dRaw), append(md, dMD)
		}
	}
	median, ms := benchkit.Median, benchkit.Millis
	overhead := median(raw) - median(plain)
	fmt.Printf("web_fetch of a 1 MiB page, %d rounds (median, p25–p75):\n", rounds)
	fmt.Printf("  %-34s %10s  %s\n", "plain http.Get + ReadAll (ref)", ms(median(plain)), quartiles(plain))
	fmt.Printf("  %-34s %10s  %s\n", "web_fetch format=raw", ms(median(raw)), quartiles(raw))
	fmt.Printf("  %-34s %10s  %s\n", "web_fetch format=markdown", ms(median(md)), quartiles(md))
	fmt.Printf("  overhead raw − ref: %s (target ≤ 2 ms) %s; ratio %.2f; conversion adds %s\n",
		ms(overhead), benchkit.Verdict(overhead <= 2*time.Millisecond), float64(median(raw))/float64(median(plain)), ms(median(md)-median(raw)))
}

func benchMarkdown(page string) {
	var runs []time.Duration
	for i := 0; i < 15; i++ {
		t0 := time.Now()
		_ = web.HTMLToMarkdown(context.Background(), page, "http://bench.test/")
		runs = append(runs, time.Since(t0))
	}
	mbps := func(d time.Duration) float64 { return float64(len(page)) / 1e6 / d.Seconds() }
	// The slowest quarter of the runs is the lowest quarter of the rates.
	fmt.Printf("HTML→Markdown (html-to-markdown v2 on x/net/html), 1 MiB page, 15 runs: median %.1f MB/s (p25–p75 %.1f–%.1f MB/s)\n",
		mbps(benchkit.Median(runs)), mbps(benchkit.Percentile(runs, 75)), mbps(benchkit.Percentile(runs, 25)))
}

// benchMemory runs each probe in a child process, which reports its peak
// RSS (VmHWM: rusage's maxrss of a child counts the parent's pages too).
func benchMemory(srvURL string) {
	fmt.Printf("peak RSS reading an endless text/plain body with the cap at its ceiling (%d bytes):\n", ceiling)
	var ref int64
	for _, mode := range []string{"baseline", "readall", "fetch"} {
		cmd := exec.Command(os.Args[0], "-child", mode, "-url", srvURL)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		must(err)
		var rss int64
		note, hwm, _ := strings.Cut(strings.TrimSpace(string(out)), "|")
		_, err = fmt.Sscan(hwm, &rss)
		must(err)
		switch mode {
		case "baseline":
			fmt.Printf("  %-34s %7.1f MB\n", "process baseline (no fetch)", float64(rss)/1e6)
		case "readall":
			ref = rss
			fmt.Printf("  %-34s %7.1f MB  %s\n", "io.ReadAll(LimitReader) (ref)", float64(rss)/1e6, note)
		case "fetch":
			fmt.Printf("  %-34s %7.1f MB  %s; %.2f× the cap, %.2f× ref (target ≤ 2.5× cap) %s\n",
				"web_fetch format=raw", float64(rss)/1e6, note, float64(rss)/ceiling, float64(rss)/float64(ref), benchkit.Verdict(float64(rss) <= 2.5*ceiling))
		}
	}
}

func probe(mode, srvURL string) int {
	switch mode {
	case "readall":
		resp, err := http.Get(srvURL + "/endless")
		must(err)
		b, err := io.ReadAll(io.LimitReader(resp.Body, ceiling))
		must(err)
		fmt.Printf("read %d bytes", len(b))
	case "fetch":
		f := fetcher(srvURL, ceiling)
		p, err := f.Fetch(context.Background(), testURL(srvURL, "/endless"), web.FormatRaw)
		must(err)
		fmt.Printf("read %d bytes, truncated=%v", p.Bytes, p.Truncated)
	}
	rss, err := benchkit.PeakRSS(os.Getpid())
	must(err)
	fmt.Printf("|%d", rss)
	return 0
}

func endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	chunk := []byte(strings.Repeat("endless stream of text ", 2800))
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// makePage builds an HTML page of about n bytes: headings, paragraphs with
// links and emphasis, lists, tables and code, the mix of a docs page.
func makePage(n int) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Bench</title><style>body{font:14px sans-serif}</style></head><body>\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "<h2 id=\"s%d\">Section %d</h2>\n", i, i)
		fmt.Fprintf(&b, "<p>Paragraph %d with <a href=\"/docs/%d\">a relative link</a>, <em>emphasis</em>, <strong>strong text</strong> and <code>inline_code(%d)</code>. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>\n", i, i, i)
		fmt.Fprintf(&b, "<ul><li>first item %d</li><li>second <a href=\"https://example.com/%d\">external</a></li><li>third</li></ul>\n", i, i)
		fmt.Fprintf(&b, "<table><tr><th>name</th><th>value</th></tr><tr><td>alpha</td><td>%d</td></tr><tr><td>beta</td><td>%d</td></tr></table>\n", i, i*2)
		fmt.Fprintf(&b, "<pre><code>func f%d() int { return %d }</code></pre>\n", i, i)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// quartiles is "p25–p75" of d.
func quartiles(d []time.Duration) string {
	return benchkit.Millis(benchkit.Percentile(d, 25)) + "–" + benchkit.Millis(benchkit.Percentile(d, 75))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/web:", err)
		os.Exit(1)
	}
}
