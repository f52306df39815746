package checkpoint

import "crypto/sha256"

// Content-defined chunking (a gear rolling hash, as in FastCDC): a chunk
// ends where the hash of the last 64 bytes has its top bits clear, so an
// edit moves only the boundaries near it, and two versions of a file share
// every chunk outside the edited region. Chunks are stored once per hash,
// so 1,000 edits of a 1 MiB file store the file once plus the chunks each
// edit touched.
const (
	minChunk = 2 << 10
	maxChunk = 64 << 10
	// cutMask has 13 bits: a boundary every 8 KiB on average past minChunk.
	cutMask = uint64(0x1fff) << 51
)

type hash = [sha256.Size]byte

// gear is a fixed table of random 64-bit values (splitmix64 from a fixed
// seed), the same in every build so chunk boundaries are stable.
var gear = func() (t [256]uint64) {
	x := uint64(0x5eed_c4ec_b01d_0001)
	for i := range t {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		t[i] = z ^ z>>31
	}
	return
}()

// cut is the length of the first chunk of data.
func cut(data string) int {
	n := len(data)
	if n <= minChunk {
		return n
	}
	n = min(n, maxChunk)
	var h uint64
	for i := minChunk; i < n; i++ {
		h = h<<1 + gear[data[i]]
		if h&cutMask == 0 {
			return i + 1
		}
	}
	return n
}

// chunks splits data into content-defined chunks and calls fn with each.
func chunks(data string, fn func(c string)) {
	for len(data) > 0 {
		n := cut(data)
		fn(data[:n])
		data = data[n:]
	}
}
