package web

import (
	"context"
	"fmt"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxMarkdownBytes bounds the HTML given to the Markdown converter, which
// runs at a few MB/s and does not stop at the fetch's deadline: a larger
// page (fetch_max_bytes goes up to 100 MB) is rendered by the streaming
// tokenizer instead, an order of magnitude faster. A variable for tests.
var maxMarkdownBytes = 8 << 20

// mdConverter is safe for concurrent use: each conversion has its own state.
var mdConverter = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(),
	commonmark.NewCommonmarkPlugin(),
	table.NewTablePlugin(),
	strikethrough.NewStrikethroughPlugin(),
))

// render turns decoded text into the requested format. Only HTML is
// converted; other text types are returned as they are in every format.
func render(ctx context.Context, text, mediaType, format, base string) (string, string) {
	if format == FormatRaw || (mediaType != "text/html" && mediaType != "application/xhtml+xml") {
		return text, ""
	}
	if format == FormatText {
		return HTMLText(text), ""
	}
	if len(text) > maxMarkdownBytes {
		return HTMLText(text), fmt.Sprintf("the HTML is larger than %d bytes; converted to plain text instead of Markdown", maxMarkdownBytes)
	}
	// The parser refuses documents nesting more than 512 open elements,
	// which also bounds the converter's recursion; such a page, or any the
	// converter fails on, is rendered as plain text by the tokenizer.
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return HTMLText(text), fmt.Sprintf("the HTML could not be parsed as a tree (%v); converted to plain text instead of Markdown", err)
	}
	md, err := mdConverter.ConvertNode(doc, converter.WithContext(ctx), converter.WithDomain(base))
	if err != nil {
		return HTMLText(text), fmt.Sprintf("Markdown conversion failed (%v); converted to plain text", err)
	}
	return string(md), ""
}

// HTMLToMarkdown converts an HTML document to Markdown, links made absolute
// against base.
func HTMLToMarkdown(ctx context.Context, page, base string) string {
	md, _ := render(ctx, page, "text/html", FormatMarkdown, base)
	return md
}

// skipped elements carry no readable text. All are raw-text elements to the
// tokenizer, so their content is one token and an unclosed one cannot hide
// the rest of the page.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Title: true,
	atom.Textarea: true, atom.Xmp: true, atom.Iframe: true, atom.Noembed: true, atom.Noframes: true,
}

// blocks start a new line in the text rendering.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.Tr: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Pre: true,
	atom.Blockquote: true, atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Hr: true,
	atom.Dt: true, atom.Dd: true, atom.Main: true, atom.Nav: true, atom.Aside: true,
}

// HTMLText is the readable text of a page: script and style dropped,
// entities decoded, whitespace collapsed, a line per block element. It
// streams tokens, so nesting depth does not matter.
func HTMLText(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	var b strings.Builder
	inSkipped := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return tidyLines(b.String())
		case html.TextToken:
			if inSkipped == 0 {
				writeCollapsed(&b, string(z.Text()))
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case skipped[a] && tt == html.StartTagToken:
				inSkipped++
			case skipped[a] && tt == html.EndTagToken && inSkipped > 0:
				inSkipped--
			}
			if blocks[a] {
				b.WriteByte('\n')
			}
		}
	}
}

func writeCollapsed(b *strings.Builder, s string) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		if s != "" {
			b.WriteByte(' ')
		}
		return
	}
	if s[0] == ' ' || s[0] == '\n' || s[0] == '\t' {
		b.WriteByte(' ')
	}
	b.WriteString(strings.Join(fields, " "))
	if last := s[len(s)-1]; last == ' ' || last == '\n' || last == '\t' {
		b.WriteByte(' ')
	}
}

// tidyLines trims every line and keeps at most one empty line in a row.
func tidyLines(s string) string {
	var out []string
	blank := true
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, line)
		blank = false
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
