package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unsafe"

	"steerable.dev/sidecar/internal/imaging"
	"steerable.dev/sidecar/internal/pdftext"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

// MediaOptions are read_file's limits for what is not text
// (STEERABLE_IMAGE_MAX_EDGE, STEERABLE_IMAGE_MAX_BYTES,
// STEERABLE_PDF_DOCUMENT); zero limits are the defaults.
type MediaOptions struct {
	Image       imaging.Limits
	PDFDocument bool
}

// The image limits' defaults: what the common model APIs take without
// scaling it themselves.
const (
	DefaultImageMaxEdge  = 1568
	DefaultImageMaxBytes = 3_932_160
)

func (m MediaOptions) imageLimits() imaging.Limits {
	l := m.Image
	if l.MaxEdge <= 0 {
		l.MaxEdge = DefaultImageMaxEdge
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultImageMaxBytes
	}
	return l
}

// What a file's name says it holds; the content decides in the end.
type fileKind int

const (
	kindText fileKind = iota
	kindMedia
	kindNotebook
)

// kindByName looks at the extension only: the cheap test every read_file
// makes before it opens the file. SVG is text (XML) and stays text.
func kindByName(abs string) fileKind {
	ext := filepath.Ext(abs)
	if len(ext) < 4 || len(ext) > 6 {
		return kindText
	}
	switch strings.ToLower(ext) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf":
		return kindMedia
	case ".ipynb":
		return kindNotebook
	}
	return kindText
}

// mediaType reports whether a sniffed content type (of a file refused as
// not text) is one read_file shows: an image or a PDF under another name.
func mediaType(t string) bool {
	switch t {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf":
		return true
	}
	return false
}

// readMedia loads a file whole and reads it as what its bytes are: an
// image, a PDF, or, when it is neither (a Git LFS pointer named .png), as
// text.
func (e fileEnv) readMedia(ctx context.Context, abs string, a readFileArgs) protocol.ToolResult {
	s, _, err := e.ws.ReadFile(abs, e.maxBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notFound(e, abs)
	case err != nil:
		return refusal(fileFailure(abs, err))
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only, like s
	switch {
	case imaging.Sniff(b) != "":
		if a.Pages != "" || a.Offset != 0 || a.Limit != 0 {
			return Followup("%s is an image, which is read whole: call read_file with its path only (offset, limit and pages select lines and PDF pages)", abs)
		}
		return e.readImage(ctx, abs, b)
	case pdftext.Magic(b):
		if a.Offset != 0 || a.Limit != 0 {
			return Followup("%s is a PDF: select its pages with pages (\"3\", \"1-5\"), not offset and limit", abs)
		}
		return e.readPDF(ctx, abs, b, a.Pages)
	case a.Pages != "":
		return Followup("pages selects PDF pages, and %s is not a PDF; read it without pages (offset and limit select lines)", abs)
	}
	return e.readText(ctx, abs, a, false)
}

// readImage returns the picture, fitted to the model's limits.
func (e fileEnv) readImage(ctx context.Context, abs string, b []byte) protocol.ToolResult {
	lim := e.media.imageLimits()
	p, err := imaging.Fit(b, lim)
	if ctx.Err() != nil {
		return refusal(cancelled(abs))
	}
	if err != nil {
		r := Followup("%s cannot be shown as an image: %v", abs, err)
		r.Data = map[string]any{"path": abs, "bytes": len(b)}
		return r
	}
	version := readstate.OfString(unsafe.String(unsafe.SliceData(b), len(b)))
	// The model saw the whole picture: a later write_file of the path is a
	// whole-file write after a full read.
	e.state.Set(abs, readstate.Entry{Version: version})
	msg := imageMessage(abs, len(b), p, lim)
	r := OK(msg, map[string]any{
		"path": abs, "mimeType": p.Format.MimeType(), "width": p.Width, "height": p.Height,
		"originalWidth": p.OriginalWidth, "originalHeight": p.OriginalHeight, "bytes": len(b),
		"version": version, "scaled": p.Scaled,
	})
	r.Content = []protocol.ContentBlock{
		{Type: protocol.ContentText, Text: msg},
		{Type: protocol.ContentImage, MimeType: p.Format.MimeType(), Data: p.Data},
	}
	return r
}

// imageMessage says what the picture is and what was done to it.
func imageMessage(abs string, size int, p imaging.Picture, lim imaging.Limits) string {
	msg := fmt.Sprintf("Read image %s (%s, %d×%d, %d bytes)", abs, strings.ToUpper(string(p.Source)), p.OriginalWidth, p.OriginalHeight, size)
	switch {
	case p.Scaled:
		msg += fmt.Sprintf("; scaled down to %d×%d to fit the model's limits (%d pixels on the long edge, STEERABLE_IMAGE_MAX_EDGE; %d bytes, STEERABLE_IMAGE_MAX_BYTES), sent as %s (%d bytes)",
			p.Width, p.Height, lim.MaxEdge, lim.MaxBytes, p.Format.MimeType(), len(p.Data))
	case p.Reencoded && p.Source == imaging.GIF:
		msg += "; its first frame, sent as image/png"
	case p.Reencoded:
		msg += fmt.Sprintf("; re-encoded as %s (%d bytes) to fit STEERABLE_IMAGE_MAX_BYTES=%d", p.Format.MimeType(), len(p.Data), lim.MaxBytes)
	}
	return msg + "."
}

// notFound is the follow-up for a path that does not exist.
func notFound(e fileEnv, abs string) protocol.ToolResult {
	return Followup("%s does not exist; check the path (list the directory with bash: ls %s)", abs, e.ws.Rel(filepath.Dir(abs)))
}
