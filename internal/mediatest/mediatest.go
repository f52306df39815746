// Package mediatest makes the images and PDFs that tests of read_file
// read: generated on the fly (the repository holds no binary fixtures but
// two tiny WebP files, which the standard library cannot encode), including
// the hostile ones — decompression bombs, truncated files, encrypted and
// malformed PDFs. Only tests import it.
package mediatest

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
)

// WebP is a 64×48 lossy WebP; WebPAlpha a 40×30 lossless one with
// transparency (both made with ImageMagick).
var (
	//go:embed photo.webp
	WebP []byte
	//go:embed alpha.webp
	WebPAlpha []byte
)

// PNGBomb is a PNG whose header declares w×h pixels and that holds none.
func PNGBomb(w, h uint32) []byte {
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit truecolor
	b := []byte("\x89PNG\r\n\x1a\n")
	b = binary.BigEndian.AppendUint32(b, 13)
	chunk := append([]byte("IHDR"), ihdr[:]...)
	b = append(b, chunk...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(chunk))
	return append(b, "\x00\x00\x00\x00IEND\xaeB`\x82"...)
}

// GIFBomb is a GIF whose logical screen declares w×h pixels.
func GIFBomb(w, h uint16) []byte {
	b := []byte("GIF89a")
	b = binary.LittleEndian.AppendUint16(b, w)
	b = binary.LittleEndian.AppendUint16(b, h)
	return append(b, 0, 0, 0, ';')
}

// Noisy is a w×h opaque image of random pixels (incompressible).
func Noisy(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.Uint32())
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

// Gradient is a smooth w×h opaque image, like a photo's sky.
func Gradient(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x + y) % 256), 255})
		}
	}
	return img
}

// PNG encodes img as PNG.
func PNG(img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// JPEG encodes img as JPEG at quality 90.
func JPEG(img image.Image) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// AnimatedGIF is a 30×20 GIF of two frames, red then blue.
func AnimatedGIF() []byte {
	pal := color.Palette{color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}}
	red, blue := image.NewPaletted(image.Rect(0, 0, 30, 20), pal), image.NewPaletted(image.Rect(0, 0, 30, 20), pal)
	for i := range blue.Pix {
		blue.Pix[i] = 1
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{red, blue}, Delay: []int{10, 10}}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Photo is a w×h opaque image like a photograph: smooth gradients with
// sensor-like noise, so it compresses as photos do.
func Photo(w, h int) *image.RGBA {
	img := Gradient(w, h)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range img.Pix {
		if i%4 != 3 {
			img.Pix[i] = uint8(min(255, int(img.Pix[i])+int(r.Uint32()%24)))
		}
	}
	return img
}
