package rpc

import (
	"encoding/json"
	"sync"

	"steerable.dev/sidecar/protocol"
)

// Outgoing frames are assembled from their parts: the envelope is a fixed
// prefix, the id is echoed as it came, and only the result, params or
// error object goes through encoding/json — once.

// frameBufs recycles the buffers replies are assembled in: the stream
// copies a frame before writeFrame returns, so the buffer is free again.
// Buffers that grew past maxPooledFrame (a large file's content) are left
// to the collector rather than kept.
var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxPooledFrame = 64 << 10

func getFrameBuf() *[]byte { return frameBufs.Get().(*[]byte) }

func putFrameBuf(p *[]byte, b []byte) {
	if cap(b) <= maxPooledFrame {
		*p = b[:0]
		frameBufs.Put(p)
	}
}

// appendResult appends the reply {"jsonrpc":"2.0","id":ID,"result":R}.
func appendResult(dst []byte, id json.RawMessage, result any) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":`...)
	if err := appendValue(&dst, result); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// appendError appends the reply {"jsonrpc":"2.0","id":ID,"error":E}, E
// mapped by toWire.
func appendError(dst []byte, id json.RawMessage, err error) []byte {
	e, mErr := json.Marshal(toWire(err))
	if mErr != nil { // data that does not marshal: keep the code and message
		we := toWire(err)
		e, _ = json.Marshal(protocol.WireError{Code: we.Code, Message: we.Message, Data: map[string]any{"kind": we.Code.Kind()}})
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"error":`...)
	dst = append(dst, e...)
	return append(dst, '}')
}

// appendRequest appends a request (id set) or a notification (id nil) of
// the sidecar's: {"jsonrpc":"2.0"[,"id":ID],"method":M,"params":P}.
func appendRequest(dst []byte, id json.RawMessage, method string, params any) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0",`...)
	if id != nil {
		dst = append(dst, `"id":`...)
		dst = append(dst, id...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"method":`...)
	dst = protocol.AppendJSONString(dst, method)
	dst = append(dst, `,"params":`...)
	if err := appendValue(&dst, params); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// appendValue appends v's JSON: its own when it is a JSONAppender, else
// encoding/json's.
func appendValue(dst *[]byte, v any) error {
	if a, ok := v.(protocol.JSONAppender); ok {
		b, err := a.AppendJSON(*dst)
		*dst = b
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*dst = append(*dst, b...)
	return nil
}
