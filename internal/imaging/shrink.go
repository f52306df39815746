package imaging

import (
	"image"
	"image/color"
	"runtime"
	"sync"

	"golang.org/x/image/draw"
)

// resize scales img to exactly w×h: an integer box average first when the
// reduction is two or more, then Catmull-Rom for the rest (package doc).
func resize(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	if b.Dx() == w && b.Dy() == h {
		return img
	}
	if k := min(b.Dx()/w, b.Dy()/h); k >= 2 {
		img = boxShrink(img, k)
		if b = img.Bounds(); b.Dx() == w && b.Dy() == h {
			return img
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	return dst
}

// boxShrink averages every k×k block of img into one pixel (a partial
// block at the right or bottom edge averages what it has), in bands of
// rows on every CPU.
func boxShrink(img image.Image, k int) *image.RGBA {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, (b.Dx()+k-1)/k, (b.Dy()+k-1)/k))
	var row func(oy int)
	switch src := img.(type) {
	case *image.YCbCr:
		row = func(oy int) { ycbcrRow(dst, src, k, oy) }
	case *image.RGBA:
		row = func(oy int) { rgbaRow(dst, src.Pix, src.Stride, b, k, oy, false) }
	case *image.NRGBA:
		row = func(oy int) { rgbaRow(dst, src.Pix, src.Stride, b, k, oy, true) }
	default:
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
		return boxShrink(rgba, k)
	}
	inBands(dst.Bounds().Dy(), row)
	return dst
}

// inBands calls row for 0..n-1, spread over the CPUs in contiguous bands.
func inBands(n int, row func(int)) {
	workers := min(runtime.GOMAXPROCS(0), max(n/16, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for y := n * w / workers; y < n*(w+1)/workers; y++ {
				row(y)
			}
		})
	}
	wg.Wait()
}

// rgbaRow fills output row oy from 8-bit RGBA samples (premultiplied, or
// not when straight is set: those are weighted by their alpha, so a
// transparent pixel's color does not bleed into its neighbours).
func rgbaRow(dst *image.RGBA, pix []byte, stride int, b image.Rectangle, k, oy int, straight bool) {
	y0, y1 := oy*k, min(oy*k+k, b.Dy())
	out := dst.Pix[oy*dst.Stride:]
	for ox := range dst.Bounds().Dx() {
		x0, x1 := ox*k, min(ox*k+k, b.Dx())
		var r, g, bl, a uint32
		for y := y0; y < y1; y++ {
			p := pix[y*stride+x0*4 : y*stride+x1*4]
			for i := 0; i < len(p); i += 4 {
				pa := uint32(p[i+3])
				if straight {
					r, g, bl = r+uint32(p[i])*pa/255, g+uint32(p[i+1])*pa/255, bl+uint32(p[i+2])*pa/255
				} else {
					r, g, bl = r+uint32(p[i]), g+uint32(p[i+1]), bl+uint32(p[i+2])
				}
				a += pa
			}
		}
		n := uint32((y1 - y0) * (x1 - x0))
		o := out[ox*4 : ox*4+4]
		o[0], o[1], o[2], o[3] = uint8((r+n/2)/n), uint8((g+n/2)/n), uint8((bl+n/2)/n), uint8((a+n/2)/n)
	}
}

// ycbcrRow fills output row oy from a JPEG's planes: luma and chroma are
// averaged separately (the conversion to RGB is affine, so averaging before
// it is averaging after, up to clamping), then converted once per output
// pixel.
func ycbcrRow(dst *image.RGBA, src *image.YCbCr, k, oy int) {
	b := src.Rect
	cx, cy := chromaShift(src.SubsampleRatio)
	y0, y1 := b.Min.Y+oy*k, min(b.Min.Y+oy*k+k, b.Max.Y)
	out := dst.Pix[oy*dst.Stride:]
	for ox := range dst.Bounds().Dx() {
		x0, x1 := b.Min.X+ox*k, min(b.Min.X+ox*k+k, b.Max.X)
		var ys, cbs, crs uint32
		for y := y0; y < y1; y++ {
			yrow := src.Y[(y-b.Min.Y)*src.YStride:]
			crow := (y>>cy - b.Min.Y>>cy) * src.CStride
			for x := x0; x < x1; x++ {
				ys += uint32(yrow[x-b.Min.X])
				ci := crow + x>>cx - b.Min.X>>cx
				cbs, crs = cbs+uint32(src.Cb[ci]), crs+uint32(src.Cr[ci])
			}
		}
		n := uint32((y1 - y0) * (x1 - x0))
		r, g, bl := color.YCbCrToRGB(uint8((ys+n/2)/n), uint8((cbs+n/2)/n), uint8((crs+n/2)/n))
		o := out[ox*4 : ox*4+4]
		o[0], o[1], o[2], o[3] = r, g, bl, 255
	}
}

// chromaShift is how many bits x and y are shifted to index a chroma
// sample.
func chromaShift(r image.YCbCrSubsampleRatio) (cx, cy int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return 1, 0
	case image.YCbCrSubsampleRatio420:
		return 1, 1
	case image.YCbCrSubsampleRatio440:
		return 0, 1
	case image.YCbCrSubsampleRatio411:
		return 2, 0
	case image.YCbCrSubsampleRatio410:
		return 2, 1
	}
	return 0, 0
}
