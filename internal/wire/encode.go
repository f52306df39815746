package wire

import (
	"encoding/json"

	"steerable.dev/sidecar/protocol"
)

// Outgoing frames are assembled from their parts: the envelope is a fixed
// prefix, the id is echoed as it came, and only the result, params or
// error object goes through encoding/json — once.

// AppendResult appends the reply {"jsonrpc":"2.0","id":ID,"result":R}.
func AppendResult(dst []byte, id json.RawMessage, result any) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":`...)
	if err := AppendValue(&dst, result); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// AppendError appends the reply {"jsonrpc":"2.0","id":ID,"error":E}. Data
// that does not marshal is replaced by {"kind": …}, so the code and message
// always reach the peer.
func AppendError(dst []byte, id json.RawMessage, e protocol.WireError) []byte {
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(protocol.WireError{Code: e.Code, Message: e.Message, Data: map[string]any{"kind": e.Code.Kind()}})
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"error":`...)
	dst = append(dst, b...)
	return append(dst, '}')
}

// AppendRequest appends a request (id set) or a notification (id nil):
// {"jsonrpc":"2.0"[,"id":ID],"method":M,"params":P}.
func AppendRequest(dst []byte, id json.RawMessage, method string, params any) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0",`...)
	if id != nil {
		dst = append(dst, `"id":`...)
		dst = append(dst, id...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"method":`...)
	dst = protocol.AppendJSONString(dst, method)
	dst = append(dst, `,"params":`...)
	if err := AppendValue(&dst, params); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// AppendValue appends v's JSON: its own when it is a protocol.JSONAppender,
// else encoding/json's.
func AppendValue(dst *[]byte, v any) error {
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
