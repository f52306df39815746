package rpc

import (
	"encoding/json"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

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

// appendResult appends result's JSON, the one encoding/json pass of a
// reply.
func appendResult(dst []byte, result any) ([]byte, error) {
	err := wire.AppendValue(&dst, result)
	return dst, err
}

// responseAndResult is a Response with the result it points to.
type responseAndResult struct {
	resp   jsonrpc2.Response
	result json.RawMessage
}

// replyID is a request's id as the Conn echoes it: as the host spelled it.
func replyID(id wire.ID) jsonrpc2.ID {
	return jsonrpc2.ID{Raw: string(id.Raw)}
}
