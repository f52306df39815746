package rpc

import (
	"encoding/json"
	"sync"

	"steerable.dev/sidecar/internal/wire"
)

// frameBufs recycles the buffers replies are assembled in: the writer
// copies a frame before Send returns, so the buffer is free again. Buffers
// that grew past maxPooledFrame (a large file's content) are left to the
// collector rather than kept.
var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxPooledFrame = 64 << 10

func getFrameBuf() *[]byte { return frameBufs.Get().(*[]byte) }

func putFrameBuf(p *[]byte, b []byte) {
	if cap(b) <= maxPooledFrame {
		*p = b[:0]
		frameBufs.Put(p)
	}
}

// appendError appends the error reply for err, mapped by toWire.
func appendError(dst []byte, id json.RawMessage, err error) []byte {
	return wire.AppendError(dst, id, toWire(err))
}
