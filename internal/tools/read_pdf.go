package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/pdftext"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

// pdfTimeout bounds one PDF read: a hostile file is an error, never a
// call that runs on.
const pdfTimeout = 60 * time.Second

// maxDocumentBytes bounds the document block: the largest PDF the common
// model APIs take in one request.
const maxDocumentBytes = 32 << 20

// readPDF returns the text of the selected pages (the first
// pdftext.MaxPages without pages), each after a page marker, and with
// STEERABLE_PDF_DOCUMENT a document block of those pages.
func (e fileEnv) readPDF(ctx context.Context, abs string, b []byte, sel string) protocol.ToolResult {
	ctx, cancel := context.WithTimeout(ctx, pdfTimeout)
	defer cancel()
	doc, err := pdftext.Open(ctx, b)
	if err != nil {
		return pdfFailure(abs, len(b), err)
	}
	total := doc.NumPages()
	first, last, err := pdftext.ParseRange(sel, total)
	if err != nil {
		return Followup("%s: %v", abs, err)
	}
	pages, err := doc.Text(ctx, first, last)
	if err != nil {
		return pdfFailure(abs, len(b), err)
	}
	text, clipped := files.Clip(renderPages(pages, total))
	version := readstate.OfString(unsafe.String(unsafe.SliceData(b), len(b)))
	partial := first > 1 || last < total || clipped > 0
	e.state.Set(abs, readstate.Entry{Version: version, Partial: partial})
	msg := pdfMessage(abs, len(b), total, first, last, sel, pages, clipped)
	data := map[string]any{"path": abs, "content": text, "version": version, "partial": partial,
		"totalPages": total, "pages": pageSpan(first, last), "bytes": len(b)}
	content := []protocol.ContentBlock{{Type: protocol.ContentText, Text: msg + "\n\n" + text}}
	if e.media.PDFDocument && last >= first {
		block, note := documentBlock(doc, first, last)
		if block != nil {
			content = append(content, *block)
		}
		if note != "" {
			msg += " " + note
			content[0].Text = msg + "\n\n" + text
		}
	}
	r := OK(msg, data)
	r.Content = content
	return r
}

// renderPages writes each page after its marker; a page without text says
// so (a scan has no text layer).
func renderPages(pages []pdftext.Page, total int) string {
	var b strings.Builder
	for _, p := range pages {
		fmt.Fprintf(&b, "--- page %d of %d ---\n", p.Number, total)
		switch {
		case p.Text == "" && p.Stopped == "":
			b.WriteString("[no text on this page: it may be a scanned image]\n")
		case p.Text != "":
			b.WriteString(p.Text)
			b.WriteByte('\n')
		}
		if p.Stopped != "" {
			fmt.Fprintf(&b, "[%s]\n", p.Stopped)
		}
	}
	return b.String()
}

// pdfMessage says what was read, what has no text, and how to read more.
func pdfMessage(abs string, size, total, first, last int, sel string, pages []pdftext.Page, clipped int) string {
	msg := fmt.Sprintf("Read PDF %s (%d pages, %d bytes)", abs, total, size)
	if total > 0 {
		msg += ", pages " + pageSpan(first, last)
	}
	msg += "."
	var textless []string
	for _, p := range pages {
		if p.Text == "" {
			textless = append(textless, fmt.Sprint(p.Number))
		}
	}
	switch {
	case total == 0:
		msg += " It has no pages."
	case len(textless) == len(pages):
		msg += " None of these pages has a text layer: they may be scanned images. Convert a page to PNG with bash (pdftoppm -png -r 100 -f N -l N file.pdf page, where poppler-utils is installed) and read the image."
	case len(textless) > 0:
		msg += fmt.Sprintf(" Pages without text (scanned images?): %s.", strings.Join(textless, ", "))
	}
	if last < total && sel == "" {
		msg += fmt.Sprintf(" It has %d pages: read more with pages, e.g. pages:\"%s\" (at most %d a call).", total, pageSpan(last+1, min(total, last+pdftext.MaxPages)), pdftext.MaxPages)
	}
	if clipped > 0 {
		msg += fmt.Sprintf(" %d characters in the middle are not shown: read fewer pages at a time.", clipped)
	}
	return msg
}

func pageSpan(first, last int) string {
	if first == last {
		return fmt.Sprint(first)
	}
	return fmt.Sprintf("%d-%d", first, last)
}

// documentBlock is the selected pages as a PDF, or a note saying why it
// is left out.
func documentBlock(doc *pdftext.Doc, first, last int) (*protocol.ContentBlock, string) {
	sub, err := doc.Subset(first, last)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("No document block: %v.", err)
	case len(sub) > maxDocumentBytes:
		return nil, fmt.Sprintf("No document block: the pages come to %d bytes, over %d.", len(sub), maxDocumentBytes)
	}
	return &protocol.ContentBlock{Type: protocol.ContentDocument, MimeType: "application/pdf", Data: sub}, ""
}

// pdfFailure maps pdftext's errors to follow-ups that name the way out.
func pdfFailure(abs string, size int, err error) protocol.ToolResult {
	var m *pdftext.MalformedError
	var r protocol.ToolResult
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		r = Followup("%s: reading the PDF took longer than %v and was stopped; extract its text with bash (pdftotext, where poppler-utils is installed)", abs, pdfTimeout)
	case errors.Is(err, context.Canceled):
		return refusal(cancelled(abs))
	case errors.Is(err, pdftext.ErrEncrypted):
		r = Followup("%s: %v; its text cannot be read here. Ask the user for a decrypted copy (e.g. qpdf --decrypt --password=... in.pdf out.pdf)", abs, err)
	case errors.As(err, &m):
		r = Followup("%s: %v. If it should be a PDF it is damaged; inspect it with bash (head -c 1024 %s | od -c)", abs, err, shellQuote(abs))
	default:
		r = Followup("%s: %v", abs, err)
	}
	r.Data = map[string]any{"path": abs, "bytes": size}
	return r
}
