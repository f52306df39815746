package imaging

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/webp"
)

// MaxPixels bounds the pixels an image may declare: decoding allocates them
// all (4 bytes each, 8 for 16-bit PNGs), so this caps a read's memory near
// 400 MB. It is far above any screenshot or photo a model needs: the
// result is scaled to MaxEdge anyway.
const MaxPixels = 50_000_000

// Header is what an image's header declares.
type Header struct {
	Format        Format
	Width, Height int
}

// ErrNotImage: the bytes are none of the four formats.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// TooLargeError refuses an image whose header declares more than
// MaxPixels; nothing was decoded.
type TooLargeError struct{ Header }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("its %s header declares %d×%d pixels (%.1f megapixels), over the %d-megapixel limit of read_file (a decompression bomb, or a very large image); "+
		"make a smaller copy first (with bash, e.g. convert in.%s -resize 4000x4000 small.png where ImageMagick is installed) and read that",
		upper(e.Format), e.Width, e.Height, float64(e.Width)*float64(e.Height)/1e6, MaxPixels/1_000_000, e.Format)
}

// CorruptError is an image that cannot be decoded: truncated, or not what
// its magic bytes say.
type CorruptError struct {
	Format Format
	Err    error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("it is not a valid %s image (corrupt or truncated: %v)", upper(e.Format), e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// ReadHeader reads the format and the declared size from b's header alone,
// and refuses a size over MaxPixels (or an empty one) before anything is
// decoded.
func ReadHeader(b []byte) (h Header, err error) {
	h.Format = Sniff(b)
	if h.Format == "" {
		return h, ErrNotImage
	}
	defer recoverCorrupt(h.Format, &err)
	var cfg image.Config
	switch r := bytes.NewReader(b); h.Format {
	case PNG:
		cfg, err = png.DecodeConfig(r)
	case JPEG:
		cfg, err = jpeg.DecodeConfig(r)
	case GIF:
		cfg, err = gif.DecodeConfig(r)
	case WebP:
		cfg, err = webp.DecodeConfig(r)
	}
	h.Width, h.Height = cfg.Width, cfg.Height
	switch {
	case err != nil:
		return h, &CorruptError{h.Format, err}
	case h.Width <= 0 || h.Height <= 0:
		return h, &CorruptError{h.Format, fmt.Errorf("the header declares %d×%d pixels", h.Width, h.Height)}
	case int64(h.Width)*int64(h.Height) > MaxPixels:
		return h, &TooLargeError{h}
	}
	return h, nil
}

// decode decodes the whole image (GIF: its first frame); ReadHeader has
// checked its size.
func decode(b []byte, f Format) (img image.Image, err error) {
	defer recoverCorrupt(f, &err)
	switch r := bytes.NewReader(b); f {
	case PNG:
		img, err = png.Decode(r)
	case JPEG:
		img, err = jpeg.Decode(r)
	case GIF:
		img, err = gif.Decode(r)
	case WebP:
		img, err = webp.Decode(r)
	}
	if err != nil {
		return nil, &CorruptError{f, err}
	}
	if img.Bounds().Empty() {
		return nil, &CorruptError{f, errors.New("no pixels")}
	}
	return img, nil
}

// recoverCorrupt turns a decoder's panic into a CorruptError.
func recoverCorrupt(f Format, err *error) {
	if r := recover(); r != nil {
		*err = &CorruptError{f, fmt.Errorf("the decoder failed: %v", r)}
	}
}

// upper is the format's name as people write it.
func upper(f Format) string {
	switch f {
	case WebP:
		return "WebP"
	case "":
		return "image"
	}
	return string(bytes.ToUpper([]byte(f)))
}
