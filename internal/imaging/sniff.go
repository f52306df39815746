package imaging

import "bytes"

// Format is an image format read_file shows as a picture.
type Format string

// The formats, named as their MIME subtypes.
const (
	PNG  Format = "png"
	JPEG Format = "jpeg"
	GIF  Format = "gif"
	WebP Format = "webp"
)

// MimeType is the format's MIME type.
func (f Format) MimeType() string { return "image/" + string(f) }

// Sniff names the format of b from its magic bytes, "" when it is none of
// the four. It reads at most 12 bytes, so it costs nothing beside reading
// the file.
func Sniff(b []byte) Format {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return JPEG
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return GIF
	case len(b) >= 12 && bytes.Equal(b[:4], []byte("RIFF")) && bytes.Equal(b[8:12], []byte("WEBP")):
		return WebP
	}
	return ""
}
