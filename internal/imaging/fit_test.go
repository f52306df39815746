package imaging

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"steerable.dev/sidecar/internal/mediatest"
)

func encoded(t testing.TB, f Format, img image.Image) []byte {
	t.Helper()
	if f == JPEG {
		return mediatest.JPEG(img)
	}
	return mediatest.PNG(img)
}

func TestFit(t *testing.T) {
	lim := Limits{MaxEdge: 1568, MaxBytes: 3_932_160}
	screenshot := encoded(t, PNG, mediatest.Gradient(800, 600))
	for _, tc := range []struct {
		name        string
		in          []byte
		lim         Limits
		format      Format
		w, h        int
		scaled      bool
		passThrough bool
	}{
		{"small PNG passes through", screenshot, lim, PNG, 800, 600, false, true},
		{"wide PNG scaled, aspect kept", encoded(t, PNG, mediatest.Gradient(900, 300)), Limits{MaxEdge: 500, MaxBytes: lim.MaxBytes}, PNG, 500, 167, true, false},
		{"photo JPEG scaled", encoded(t, JPEG, mediatest.Gradient(1200, 900)), Limits{MaxEdge: 300, MaxBytes: lim.MaxBytes}, JPEG, 300, 225, true, false},
		{"JPEG scaled by a non-integer factor", encoded(t, JPEG, mediatest.Gradient(700, 300)), Limits{MaxEdge: 500, MaxBytes: lim.MaxBytes}, JPEG, 500, 214, true, false},
		{"GIF: the first frame, as PNG", mediatest.AnimatedGIF(), lim, PNG, 30, 20, false, false},
		{"lossy WebP passes through", mediatest.WebP, lim, WebP, 64, 48, false, true},
		{"WebP with alpha scaled to PNG", mediatest.WebPAlpha, Limits{MaxEdge: 20, MaxBytes: lim.MaxBytes}, PNG, 20, 15, true, false},
		{"over the byte budget: JPEG", encoded(t, PNG, mediatest.Noisy(300, 300)), Limits{MaxEdge: 1568, MaxBytes: 100_000}, JPEG, 300, 300, false, false},
		{"over the budget at any quality: smaller", encoded(t, PNG, mediatest.Noisy(200, 200)), Limits{MaxEdge: 1568, MaxBytes: 6_000}, JPEG, 0, 0, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Fit(tc.in, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(p.Data))
			if err != nil || Format(format) != p.Format || cfg.Width != p.Width || cfg.Height != p.Height {
				t.Fatalf("result decodes as %s %dx%d (%v); Fit says %s %dx%d", format, cfg.Width, cfg.Height, err, p.Format, p.Width, p.Height)
			}
			if p.Format != tc.format || p.Scaled != tc.scaled || len(p.Data) > tc.lim.MaxBytes || max(p.Width, p.Height) > tc.lim.MaxEdge {
				t.Errorf("got %s %dx%d scaled=%v, %d bytes; want %s scaled=%v within %+v", p.Format, p.Width, p.Height, p.Scaled, len(p.Data), tc.format, tc.scaled, tc.lim)
			}
			if tc.w != 0 && (p.Width != tc.w || p.Height != tc.h) {
				t.Errorf("size %dx%d, want %dx%d", p.Width, p.Height, tc.w, tc.h)
			}
			if same := bytes.Equal(p.Data, tc.in); same != tc.passThrough || p.Reencoded == tc.passThrough {
				t.Errorf("bytes passed through: %v (Reencoded %v), want %v", same, p.Reencoded, tc.passThrough)
			}
		})
	}
}

// TestFitGIFFirstFrame: an animated GIF shows its first frame.
func TestFitGIFFirstFrame(t *testing.T) {
	p, err := Fit(mediatest.AnimatedGIF(), Limits{MaxEdge: 100, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(p.Data))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := img.At(5, 5).RGBA(); r>>8 != 255 || g != 0 || b != 0 {
		t.Errorf("pixel (5,5) = %d,%d,%d; the first frame is red", r>>8, g>>8, b>>8)
	}
}

// TestRefused: bombs are refused from the header, corrupt and truncated
// files with the format named, anything else as not an image.
func TestRefused(t *testing.T) {
	good := encoded(t, PNG, mediatest.Gradient(64, 64))
	jpg := encoded(t, JPEG, mediatest.Gradient(64, 64))
	var tooLarge *TooLargeError
	var corrupt *CorruptError
	for _, tc := range []struct {
		name string
		in   []byte
		is   func(error) bool
	}{
		{"PNG declaring 60000x60000", mediatest.PNGBomb(60000, 60000), func(err error) bool { return errors.As(err, &tooLarge) && tooLarge.Width == 60000 }},
		{"PNG declaring 2^31 wide", mediatest.PNGBomb(1<<31-1, 2), func(err error) bool { return errors.As(err, &tooLarge) }},
		{"GIF declaring 65535x65535", mediatest.GIFBomb(65535, 65535), func(err error) bool { return errors.As(err, &tooLarge) }},
		{"PNG declaring 0x10", mediatest.PNGBomb(0, 10), func(err error) bool { return errors.As(err, &corrupt) }},
		{"truncated PNG", good[:len(good)/2], func(err error) bool { return errors.As(err, &corrupt) && corrupt.Format == PNG }},
		{"truncated JPEG", jpg[:len(jpg)/2], func(err error) bool { return errors.As(err, &corrupt) && corrupt.Format == JPEG }},
		{"PNG magic, then garbage", append([]byte("\x89PNG\r\n\x1a\n"), "garbage garbage garbage"...), func(err error) bool { return errors.As(err, &corrupt) }},
		{"WebP magic, then garbage", []byte("RIFF\x10\x00\x00\x00WEBPVP8 garbage"), func(err error) bool { return errors.As(err, &corrupt) && corrupt.Format == WebP }},
		{"text", []byte("hello"), func(err error) bool { return errors.Is(err, ErrNotImage) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fit(tc.in, Limits{MaxEdge: 1568, MaxBytes: 1 << 20})
			if err == nil || !tc.is(err) {
				t.Fatalf("Fit: %v (%T)", err, err)
			}
			t.Log(err)
		})
	}
}

// TestBoxShrinkMatchesAverage: the box average of each source layout
// equals a plain average of the pixels' colours (as color.Model converts
// them), within rounding.
func TestBoxShrinkMatchesAverage(t *testing.T) {
	src := mediatest.Gradient(37, 23)
	nrgba := image.NewNRGBA(src.Rect)
	copy(nrgba.Pix, src.Pix)
	for i := 3; i < len(nrgba.Pix); i += 8 {
		nrgba.Pix[i] = 128
	}
	jpg, err := jpeg.Decode(bytes.NewReader(encoded(t, JPEG, src)))
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range []image.Image{src, nrgba, jpg, image.NewGray(src.Rect)} {
		for _, k := range []int{2, 3, 5} {
			got := boxShrink(img, k)
			b := got.Bounds()
			for oy := range b.Dy() {
				for ox := range b.Dx() {
					want := average(img, image.Rect(ox*k, oy*k, min(ox*k+k, 37), min(oy*k+k, 23)))
					if !near(got.RGBAAt(ox, oy), want, 2) {
						t.Fatalf("%T k=%d (%d,%d): %v, want %v", img, k, ox, oy, got.RGBAAt(ox, oy), want)
					}
				}
			}
		}
	}
}

func average(img image.Image, r image.Rectangle) color.RGBA {
	var s [4]uint32
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			s[0], s[1], s[2], s[3] = s[0]+uint32(c.R), s[1]+uint32(c.G), s[2]+uint32(c.B), s[3]+uint32(c.A)
		}
	}
	n := uint32(r.Dx() * r.Dy())
	return color.RGBA{uint8((s[0] + n/2) / n), uint8((s[1] + n/2) / n), uint8((s[2] + n/2) / n), uint8((s[3] + n/2) / n)}
}

func near(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B) && d(a.A, b.A)
}

// FuzzReadHeader: the header check never panics, and an image it accepts
// declares at most MaxPixels; one small enough to decode quickly decodes
// or fails as CorruptError, never with a panic.
func FuzzReadHeader(f *testing.F) {
	f.Add(mediatest.PNGBomb(60000, 60000))
	f.Add(mediatest.GIFBomb(100, 100))
	f.Add(encoded(f, PNG, mediatest.Gradient(8, 8)))
	f.Add(encoded(f, JPEG, mediatest.Gradient(8, 8)))
	f.Add(mediatest.WebP)
	f.Add(mediatest.WebPAlpha)
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ReadHeader(b)
		if err != nil {
			return
		}
		if int64(h.Width)*int64(h.Height) > MaxPixels || h.Width <= 0 || h.Height <= 0 {
			t.Fatalf("accepted %dx%d", h.Width, h.Height)
		}
		if h.Width*h.Height > 1<<16 {
			return
		}
		var corrupt *CorruptError
		if _, err := Fit(b, Limits{MaxEdge: 64, MaxBytes: 1 << 16}); err != nil && !errors.As(err, &corrupt) {
			t.Fatalf("Fit: %v", err)
		}
	})
}
