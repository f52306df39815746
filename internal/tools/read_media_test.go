package tools

import (
	"bytes"
	"encoding/json"
	"image"
	"os"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/imaging"
	"steerable.dev/sidecar/internal/mediatest"
	"steerable.dev/sidecar/protocol"
)

func withMedia(m MediaOptions) harnessOpt { return func(d *Deps) { d.Media = m } }

// TestReadFileKinds: read_file decides by content, with the name as the
// cheap first guess: an image under any name is a picture, a Git LFS
// pointer named .png is text, pages applies to PDFs only.
func TestReadFileKinds(t *testing.T) {
	h := newFileHarness(t)
	png := mediatest.PNG(mediatest.Gradient(64, 32))
	h.write("shot.png", string(png))
	h.write("shot.dat", string(png))
	h.write("lfs.png", "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n")
	h.write("doc.pdf", string(mediatest.PDF(mediatest.PDFOptions{Pages: 2})))
	h.write("notes.txt", "hello\n")
	h.write("icon.svg", `<svg xmlns="http://www.w3.org/2000/svg"/>`+"\n")
	for _, tc := range []struct {
		path  string
		args  map[string]any
		check func(r protocol.ToolResult) bool
	}{
		{"shot.png", nil, func(r protocol.ToolResult) bool { return isImage(r, "image/png", png) }},
		{"shot.dat", nil, func(r protocol.ToolResult) bool { return isImage(r, "image/png", png) }},
		{"lfs.png", nil, func(r protocol.ToolResult) bool {
			return strings.HasPrefix(r.Data["content"].(string), "version https://git-lfs") && r.Content == nil
		}},
		{"icon.svg", nil, func(r protocol.ToolResult) bool {
			return strings.HasPrefix(r.Data["content"].(string), "<svg") && r.Content == nil
		}},
		{"doc.pdf", map[string]any{"pages": "2"}, func(r protocol.ToolResult) bool {
			return r.Data["pages"] == "2" && strings.Contains(r.Data["content"].(string), "--- page 2 of 2 ---\nPage 2 heading\n")
		}},
	} {
		args := map[string]any{"path": tc.path}
		for k, v := range tc.args {
			args[k] = v
		}
		if r := h.ok("read_file", args); !tc.check(r) {
			t.Errorf("%s: %+v", tc.path, r)
		}
	}
	h.refused("read_file", map[string]any{"path": "notes.txt", "pages": "1"}, "pages selects PDF pages")
	h.refused("read_file", map[string]any{"path": "shot.png", "offset": 2}, "is an image, which is read whole")
	h.refused("read_file", map[string]any{"path": "doc.pdf", "limit": 2}, "select its pages with pages")
	h.refused("read_file", map[string]any{"path": "doc.pdf", "pages": "3"}, "past the end: the PDF has 2 pages")
}

func isImage(r protocol.ToolResult, mime string, data []byte) bool {
	return len(r.Content) == 2 && r.Content[0].Type == "text" && r.Content[1].Type == "image" &&
		r.Content[1].MimeType == mime && bytes.Equal(r.Content[1].Data, data) && r.Data["mimeType"] == mime && r.Data["scaled"] == false
}

// TestReadImageScaled: a large image comes back within the limits, aspect
// kept, saying so; its version is recorded as a full read.
func TestReadImageScaled(t *testing.T) {
	h := newFileHarness(t, withMedia(MediaOptions{Image: imagingLimits(400, 1<<20)}))
	h.write("photo.jpg", string(mediatest.JPEG(mediatest.Gradient(1200, 900))))
	r := h.ok("read_file", map[string]any{"path": "photo.jpg"})
	cfg, format, err := image.DecodeConfig(bytes.NewReader(r.Content[1].Data))
	if err != nil || format != "jpeg" || cfg.Width != 400 || cfg.Height != 300 {
		t.Fatalf("sent %s %dx%d (%v)", format, cfg.Width, cfg.Height, err)
	}
	if !strings.Contains(r.Message, "scaled down to 400×300") || !strings.Contains(r.Message, "STEERABLE_IMAGE_MAX_EDGE") || r.Data["originalWidth"] != json.Number("1200") {
		t.Errorf("message %q, data %v", r.Message, r.Data)
	}
	if e, ok := h.state.Get(h.abs("photo.jpg")); !ok || e.Partial || e.Version != r.Data["version"] {
		t.Errorf("read state %+v", e)
	}
}

// TestReadImageRefused: a bomb and a corrupt file are follow-ups naming
// the problem, and no version is recorded.
func TestReadImageRefused(t *testing.T) {
	h := newFileHarness(t)
	good := mediatest.PNG(mediatest.Gradient(64, 64))
	h.write("bomb.png", string(mediatest.PNGBomb(60000, 60000)))
	h.write("broken.png", string(good[:len(good)/2]))
	h.refused("read_file", map[string]any{"path": "bomb.png"}, "declares 60000×60000 pixels (3600.0 megapixels), over the 50-megapixel limit")
	h.refused("read_file", map[string]any{"path": "broken.png"}, "not a valid PNG image (corrupt or truncated")
	for _, p := range []string{"bomb.png", "broken.png"} {
		if _, ok := h.state.Get(h.abs(p)); ok {
			t.Errorf("%s: a version was recorded", p)
		}
	}
}

// TestReadPDFDocument: with STEERABLE_PDF_DOCUMENT the selected pages come
// as a document block too; without pages a long PDF shows the first 20
// and says how to read on.
func TestReadPDFDocument(t *testing.T) {
	h := newFileHarness(t, withMedia(MediaOptions{PDFDocument: true}))
	h.write("long.pdf", string(mediatest.PDF(mediatest.PDFOptions{Pages: 25})))
	r := h.ok("read_file", map[string]any{"path": "long.pdf"})
	if r.Data["pages"] != "1-20" || r.Data["totalPages"] != json.Number("25") || r.Data["partial"] != true || !strings.Contains(r.Message, `pages:"21-25"`) {
		t.Errorf("%s %v", r.Message, r.Data["pages"])
	}
	if len(r.Content) != 2 || r.Content[1].Type != "document" || !bytes.HasPrefix(r.Content[1].Data, []byte("%PDF-")) {
		t.Fatalf("content %+v", r.Content)
	}
	os.WriteFile(h.abs("sub.pdf"), r.Content[1].Data, 0o644)
	if sub := h.ok("read_file", map[string]any{"path": "sub.pdf"}); sub.Data["totalPages"] != json.Number("20") {
		t.Errorf("the document block has %v pages", sub.Data["totalPages"])
	}
}

func imagingLimits(edge, bytes int) imaging.Limits {
	return imaging.Limits{MaxEdge: edge, MaxBytes: bytes}
}
