package web

import (
	"context"
	"strings"
	"testing"
)

func TestRenderLargeHTMLAsText(t *testing.T) {
	defer func(n int) { maxMarkdownBytes = n }(maxMarkdownBytes)
	maxMarkdownBytes = 100
	page := "<p>" + strings.Repeat("word ", 50) + "</p>"
	got, warn := render(context.Background(), page, "text/html", FormatMarkdown, "http://x/")
	if got != strings.TrimSpace(strings.Repeat("word ", 50)) || !strings.Contains(warn, "larger than 100 bytes") {
		t.Errorf("got %q, %q", got, warn)
	}
}

func TestHTMLText(t *testing.T) {
	cases := map[string]string{
		"<p>a &amp; b</p><p>c</p>":                          "a & b\n\nc",
		"<script>var x = '<p>no</p>';</script>yes":          "yes",
		"<style>p{}</style><title>T</title>body":            "body",
		"<ul><li>one<li>two</ul>":                           "one\ntwo",
		"unclosed <script>never":                            "unclosed",
		"<div><span>inline</span> <b>text</b></div>":        "inline text",
		"<pre>  keep\n  lines</pre>":                        "keep lines",
		strings.Repeat("<div>", 100000) + "deep":            "deep",
		"<textarea>hidden</textarea><noscript>x</noscript>": "",
	}
	for in, want := range cases {
		if got := HTMLText(in); got != want {
			t.Errorf("HTMLText(%.60q) = %q; want %q", in, got, want)
		}
	}
}

func TestUnwrapDDG(t *testing.T) {
	cases := map[string]string{
		"//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&rut=z": "https://a.example/x?y=1",
		"https://duckduckgo.com/l/?uddg=http%3A%2F%2Fb.example%2F":           "http://b.example/",
		"https://direct.example/page":                                        "https://direct.example/page",
		"//duckduckgo.com/l/?rut=only":                                       "",
		"//duckduckgo.com/l/?uddg=javascript%3Aalert(1)":                     "",
		"/relative": "",
		"%zz":       "",
	}
	for in, want := range cases {
		if got := unwrapDDG(in); got != want {
			t.Errorf("unwrapDDG(%q) = %q; want %q", in, got, want)
		}
	}
}
