package rpc

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/sourcegraph/jsonrpc2"

	"steerable.dev/sidecar/protocol"
)

// Cancellation causes, both -32800 on the wire.
var (
	errCancelledByHost = protocol.Errorf(protocol.CodeCancelled, "request cancelled")
	errCancelledByStop = protocol.Errorf(protocol.CodeCancelled, "request cancelled: the sidecar is shutting down")
)

// toWire is the one mapping from Go errors to JSON-RPC errors. A
// *protocol.Error anywhere in the chain keeps its code, message and data;
// context cancellation is -32800; anything else is a bug, -32603. data.kind
// is always set.
func toWire(err error) protocol.WireError {
	var pe *protocol.Error
	switch {
	case errors.As(err, &pe):
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		pe = errCancelledByHost
	default:
		pe = protocol.Errorf(protocol.CodeInternal, "internal error: %v", err)
	}
	data := make(map[string]any, len(pe.Data)+1)
	for k, v := range pe.Data {
		data[k] = v
	}
	data["kind"] = pe.Code.Kind()
	return protocol.WireError{Code: pe.Code, Message: pe.Message, Data: data}
}

// fromWire turns a host's error reply into a *protocol.Error, so callers can
// use errors.Is with the protocol sentinels.
func fromWire(e *jsonrpc2.Error) *protocol.Error {
	pe := &protocol.Error{Code: protocol.Code(e.Code), Message: e.Message}
	if e.Data != nil && len(*e.Data) > 0 {
		_ = json.Unmarshal(*e.Data, &pe.Data)
	}
	return pe
}

// toConn is err as the Conn sends it: toWire's error with its data
// marshalled once. Data that does not marshal is replaced by {"kind": …}, so
// the code and message always reach the host.
func toConn(err error) *jsonrpc2.Error {
	we := toWire(err)
	data, mErr := json.Marshal(we.Data)
	if mErr != nil {
		data, _ = json.Marshal(map[string]any{"kind": we.Code.Kind()})
	}
	raw := json.RawMessage(data)
	return &jsonrpc2.Error{Code: int64(we.Code), Message: we.Message, Data: &raw}
}
