package imaging

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
)

// Limits are what the model can use (STEERABLE_IMAGE_MAX_EDGE,
// STEERABLE_IMAGE_MAX_BYTES).
type Limits struct {
	MaxEdge  int // pixels on the long edge
	MaxBytes int // encoded
}

// Picture is an image ready for the model.
type Picture struct {
	Format                        Format // of Data
	Data                          []byte
	Width, Height                 int
	OriginalWidth, OriginalHeight int
	Source                        Format // of the file
	// Scaled: the pixels were scaled down; Reencoded: Data is not the
	// file's bytes.
	Scaled, Reencoded bool
}

// jpegQualities are tried in turn when an encoding is over the budget.
var jpegQualities = []int{85, 70, 55, 40}

// minEdge is the smallest long edge Fit shrinks to when the byte budget
// is still exceeded; below it the budget is unreachable.
const minEdge = 64

// Fit checks, decodes and, as needed, scales and re-encodes the image in b
// to lim (package doc).
func Fit(b []byte, lim Limits) (Picture, error) {
	h, err := ReadHeader(b)
	if err != nil {
		return Picture{}, err
	}
	img, err := decode(b, h.Format)
	if err != nil {
		return Picture{}, err
	}
	sb := img.Bounds()
	p := Picture{Source: h.Format, OriginalWidth: sb.Dx(), OriginalHeight: sb.Dy()}
	if max(sb.Dx(), sb.Dy()) <= lim.MaxEdge && len(b) <= lim.MaxBytes && h.Format != GIF {
		p.Format, p.Data, p.Width, p.Height = h.Format, b, sb.Dx(), sb.Dy()
		return p, nil
	}
	w, hgt := fitEdge(sb.Dx(), sb.Dy(), lim.MaxEdge)
	for {
		scaled := resize(img, w, hgt)
		p.Width, p.Height, p.Scaled, p.Reencoded = w, hgt, w != sb.Dx() || hgt != sb.Dy(), true
		if p.Format, p.Data, err = encode(scaled, h.Format, lim.MaxBytes); err != nil || p.Data != nil {
			return p, err
		}
		if max(w, hgt) <= minEdge {
			return Picture{}, fmt.Errorf("it does not fit in %d bytes even at %d×%d pixels; raise STEERABLE_IMAGE_MAX_BYTES", lim.MaxBytes, w, hgt)
		}
		w, hgt = fitEdge(w, hgt, max(w, hgt)*3/4)
	}
}

// fitEdge is w×h scaled to a long edge of at most edge, aspect kept, each
// side at least one pixel.
func fitEdge(w, h, edge int) (int, int) {
	long := max(w, h)
	if long <= edge {
		return w, h
	}
	return max(1, (w*edge+long/2)/long), max(1, (h*edge+long/2)/long)
}

// encode encodes img in at most budget bytes: PNG when the source was
// lossless (a screenshot, a diagram), else or when PNG is over the budget
// JPEG at falling quality. A nil result means nothing fit.
func encode(img image.Image, source Format, budget int) (Format, []byte, error) {
	var buf bytes.Buffer
	if source == PNG || source == GIF || (source == WebP && !isOpaque(img)) {
		if err := png.Encode(&buf, img); err != nil {
			return "", nil, err
		}
		if buf.Len() <= budget {
			return PNG, buf.Bytes(), nil
		}
	}
	flat := flatten(img)
	for _, q := range jpegQualities {
		buf.Reset()
		if err := jpeg.Encode(&buf, flat, &jpeg.Options{Quality: q}); err != nil {
			return "", nil, err
		}
		if buf.Len() <= budget {
			return JPEG, buf.Bytes(), nil
		}
	}
	return "", nil, nil
}

// flatten composes an image with transparency onto white, as a viewer
// shows it: JPEG has no alpha, and transparent pixels would turn black.
func flatten(img image.Image) image.Image {
	if isOpaque(img) {
		return img
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Over)
	return dst
}

// isOpaque reports whether every pixel of img is opaque.
func isOpaque(img image.Image) bool {
	o, ok := img.(interface{ Opaque() bool })
	return ok && o.Opaque()
}
