// Package imaging turns an image file into what a model can look at
// (SPEC §4, read_file): PNG, JPEG, GIF (its first frame) and WebP, checked,
// decoded and, when it is larger than the model can use, scaled down in
// process with its aspect kept and re-encoded under a byte budget. It uses
// the standard library and golang.org/x/image only: no cgo, so the static
// binary stays static.
//
// # Untrusted input
//
// The file comes from the workspace, and any program may have written it.
// Header reads only the format's header (image.DecodeConfig) and refuses a
// declared size over MaxPixels before a single pixel is decoded: a few
// hundred bytes can declare 60,000 × 60,000 pixels, which the decoder
// would allocate whole (a decompression bomb). A truncated or corrupt file
// is an error naming the format and what is wrong, never a panic (the
// decoders run under recover) and never bytes passed on unchecked: the
// model's API would refuse the call, not just the image.
//
// # Scaling
//
// The long edge is brought to at most Limits.MaxEdge pixels. A large
// reduction is done in two steps: an integer box average (every source
// pixel weighs the same, which is what a large downscale wants, and it
// reads each pixel once, in parallel bands), then x/image/draw's
// Catmull-Rom for the remaining factor below two, whose temporary buffer
// is then a quarter of what it would be on the full image.
//
// # Encoding
//
// An image that needs no scaling and fits the byte budget is sent as it
// is (PNG, JPEG, WebP), bytes unchanged. Otherwise it is encoded as PNG
// when it came from a lossless format and as JPEG when it came from a
// lossy one; when that exceeds Limits.MaxBytes, JPEG at falling quality,
// then smaller dimensions, until it fits.
package imaging
