package checkpoint

import (
	"crypto/sha256"
	"slices"
	"unsafe"
)

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

// sum is the SHA-256 of s without copying it: a content is hashed two or
// three times per record (its version, its chunks), and for a 1 MiB file
// each []byte(s) copy cost as much as a hash.
func sum(s string) hash {
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(s), len(s))) // read only
}

// chunking is a content split into chunks: their hashes and where each
// ends.
type chunking struct {
	data   string
	hashes []hash
	ends   []int
}

// rechunk splits data into chunks as chunks does, reusing what it can of
// base, the chunking of an earlier content of the same file (nil: none).
// Chunks are cut by the bytes from their start only, so the chunks of
// base that end inside the prefix data shares with it (and before base's
// end, where a chunk is cut short) are data's too; and once a cut of data
// falls inside the shared suffix, at the place of one of base's cuts, the
// rest of base's chunks follow unchanged. Only the chunks around an edit
// are cut and hashed again.
func rechunk(base *chunking, data string) (hashes []hash, ends []int) {
	off, i := 0, 0
	if base != nil {
		prefix := commonPrefix(base.data, data)
		for i < len(base.ends) && base.ends[i] <= prefix && base.ends[i] < len(base.data) {
			off = base.ends[i]
			i++
		}
		hashes, ends = append(hashes, base.hashes[:i]...), append(ends, base.ends[:i]...)
	}
	var suffixStart, delta int
	if base != nil {
		shared := commonSuffix(base.data[off:], data[off:])
		suffixStart, delta = len(data)-shared, len(data)-len(base.data)
	}
	for off < len(data) {
		n := cut(data[off:])
		hashes = append(hashes, sum(data[off:off+n]))
		off += n
		ends = append(ends, off)
		if base == nil || off < suffixStart || off == len(data) {
			continue
		}
		if j, found := slices.BinarySearch(base.ends, off-delta); found {
			for k := j + 1; k < len(base.ends); k++ {
				hashes, ends = append(hashes, base.hashes[k]), append(ends, base.ends[k]+delta)
			}
			return hashes, ends
		}
	}
	return hashes, ends
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && a[i:i+64] == b[i:i+64] { // 64 bytes at a time: memequal's speed
		i += 64
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && a[len(a)-i-64:len(a)-i] == b[len(b)-i-64:len(b)-i] {
		i += 64
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
