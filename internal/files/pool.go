package files

import (
	"context"
	"io"
	"sync"
)

// chunks pools the chunkSize buffers of the streaming paths (the hash pipe
// of ScanText, Hash), so streaming a large file allocates them once per
// process instead of once per call: fresh 256 KiB buffers for every read,
// even of a 4 KiB file, would keep the garbage collector busy. Pointers are pooled, so that Put does not allocate.
var chunks = sync.Pool{New: func() any {
	b := make([]byte, chunkSize)
	return &b
}}

func getChunk() []byte { return *chunks.Get().(*[]byte) }

func putChunk(b []byte) {
	b = b[:cap(b)]
	chunks.Put(&b)
}

// smallHash is the largest file Hash reads into a buffer of its own size:
// cheaper than a pooled chunk for the small files most calls touch.
const smallHash = 64 << 10

// Hash streams r to h, stopping with ctx's error once ctx is done: a
// file's version without holding the file in memory. sizeHint is the
// file's size from its stat (0 if unknown); a small file is read in one
// buffer of that size, a larger one through a pooled chunk.
func Hash(ctx context.Context, h io.Writer, r io.Reader, sizeHint int64) error {
	r = WithContext(ctx, r)
	if sizeHint > 0 && sizeHint <= smallHash {
		b, err := readAll(r, sizeHint, smallHash)
		if err != nil {
			return err
		}
		h.Write(b)
		if len(b) <= smallHash {
			return nil
		}
	}
	buf := getChunk()
	defer putChunk(buf)
	_, err := io.CopyBuffer(h, r, buf)
	return err
}
