package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/net/html/charset"
)

// ContentError is a response web_fetch will not read as text.
type ContentError struct {
	Reason string
	// Download is set when the body is fine but not text web_fetch reads (a
	// binary type, an encoding it does not decode): the fix is to download
	// it, and the tools layer, which knows what this session can run, says
	// how. Encoding is the Content-Encoding when that was the reason.
	Download bool
	Encoding string
}

func (e *ContentError) Error() string { return e.Reason }

// read reads the body of the final response: refuses compressed bodies it
// cannot decode and non-text types, reads at most fetch_max_bytes
// (streaming; more is truncated), decodes the charset to UTF-8 and renders
// the requested format. The Page is returned even on error, for its counts.
func (f *Fetcher) read(ctx context.Context, resp *http.Response, format, base string) (*Page, error) {
	page := &Page{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return page, &ContentError{Reason: fmt.Sprintf("the body is %q-encoded, which web_fetch does not decode", ce), Download: true, Encoding: ce}
	}
	mt, params, _ := mime.ParseMediaType(page.ContentType)
	if mt != "" && !isText(mt) {
		return page, nonText(mt, "")
	}
	body, truncated, err := readCapped(resp.Body, f.cfg.FetchMaxBytes, resp.ContentLength)
	page.Bytes, page.Truncated = int64(len(body)), truncated
	if err != nil {
		return page, err
	}
	if mt == "" {
		sniffed := http.DetectContentType([]byte(body[:min(len(body), 512)]))
		if mt, params, _ = mime.ParseMediaType(sniffed); !isText(mt) {
			return page, nonText(mt, " (sniffed: the server sent no Content-Type)")
		}
		page.ContentType = sniffed
	}
	text, warn := decodeCharset(body, params["charset"], truncated)
	if warn != "" {
		page.Warnings = append(page.Warnings, warn)
	}
	page.Content, warn = render(ctx, text, mt, format, base)
	if warn != "" {
		page.Warnings = append(page.Warnings, warn)
	}
	return page, nil
}

// readCapped reads at most max bytes; truncated reports that more was
// there. A body that ends before its announced Content-Length is an error.
// The buffer grows by doubling but never past max, and becomes the string
// without a copy, so memory stays near the bytes read (the cap, for an
// endless body).
func readCapped(r io.Reader, max, announced int64) (string, bool, error) {
	size := int64(64 << 10)
	if announced > 0 {
		size = announced
	}
	buf := make([]byte, 0, min(size, max))
	var peek [512]byte // a full buffer grows only once more data is seen
	var err error
	for int64(len(buf)) < max && err == nil {
		var n int
		if end := min(int64(cap(buf)), max); int64(len(buf)) < end {
			n, err = r.Read(buf[len(buf):end])
			buf = buf[:len(buf)+n]
			continue
		}
		n, err = r.Read(peek[:min(int64(len(peek)), max-int64(len(buf)))])
		if n > 0 {
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), max))
			buf = append(grown[:copy(grown, buf)], peek[:n]...)
		}
	}
	body := bytesToString(buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && announced > 0:
		return body, false, &ContentError{Reason: fmt.Sprintf("the server announced %d bytes (Content-Length) but closed the connection after %d; the response is incomplete, try again", announced, len(buf))}
	case err == io.EOF:
		return body, false, nil
	case err != nil:
		return body, false, err
	case announced == max:
		return body, false, nil
	}
	var probe [1]byte
	k, err := io.ReadFull(r, probe[:])
	return body, k > 0 || !errors.Is(err, io.EOF), nil
}

// bytesToString hands the buffer over to a string without copying it, as
// strings.Builder does: readCapped never touches buf again.
func bytesToString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// isText reports whether a media type is text web_fetch returns: text/*,
// and the structured text types (JSON, XML, JavaScript, YAML, TOML and
// their +json/+xml families).
func isText(mt string) bool {
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql", "application/x-ndjson":
		return true
	}
	return false
}

func nonText(mt, how string) *ContentError {
	return &ContentError{Reason: fmt.Sprintf("web_fetch reads text only and this response is %s%s", mt, how), Download: true}
}

// decodeCharset returns the body as UTF-8. The declared charset decides;
// without one, valid UTF-8 is taken as is, and anything else goes through
// the HTML encoding sniffer (BOM, <meta charset>, windows-1252). Invalid
// bytes become U+FFFD; the warning says what was guessed or replaced.
func decodeCharset(body, label string, truncated bool) (string, string) {
	if truncated {
		body = trimPartialRune(body)
	}
	if label != "" {
		enc, name := charset.Lookup(label)
		switch {
		case enc == nil:
			return validUTF8(body, fmt.Sprintf("unknown charset %q; read as UTF-8", label))
		case name != "utf-8":
			out, err := enc.NewDecoder().String(body)
			if err != nil {
				return validUTF8(body, fmt.Sprintf("the body is not valid %s (%v); read as UTF-8", name, err))
			}
			return out, ""
		}
		return validUTF8(body, "the body is not valid UTF-8 although it declares charset "+label)
	}
	body = strings.TrimPrefix(body, "\uFEFF")
	if utf8.ValidString(body) {
		return body, ""
	}
	enc, name, _ := charset.DetermineEncoding([]byte(body[:min(len(body), 1024)]), "")
	if name == "utf-8" {
		return validUTF8(body, "the body is not valid UTF-8")
	}
	out, err := enc.NewDecoder().String(body)
	if err != nil {
		return validUTF8(body, "the body is not valid UTF-8")
	}
	return out, fmt.Sprintf("no charset declared and the body is not UTF-8; decoded as %s", name)
}

// validUTF8 replaces invalid bytes with U+FFFD, with the warning if any were.
func validUTF8(s, warning string) (string, string) {
	if utf8.ValidString(s) {
		return s, ""
	}
	return strings.ToValidUTF8(s, "\uFFFD"), warning + "; invalid bytes were replaced with U+FFFD"
}

// trimPartialRune drops an incomplete UTF-8 sequence cut by the byte cap.
func trimPartialRune(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}
