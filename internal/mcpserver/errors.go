package mcpserver

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"steerable.dev/sidecar/internal/wire"
)

// wireError is the one mapping from a Go error to the JSON-RPC error sent to
// the client. Errors that carry a code keep it through %w wrapping. The SDK
// answers a few protocol misuses with plain errors, which it would send
// with code 0 (not a JSON-RPC code): a call before initialize, a second
// initialize. Those are -32600 Invalid Request; the SDK's message, which
// names the method, is kept.
func wireError(err error) *jsonrpc.Error {
	var w *jsonrpc.Error
	if errors.As(err, &w) && w.Code != 0 {
		if w.Message == err.Error() {
			return w
		}
		return &jsonrpc.Error{Code: w.Code, Message: err.Error(), Data: w.Data}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: err.Error()}
}

// invalidParams is a -32602 error with optional data.
func invalidParams(msg string, data any) error {
	e := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	if data != nil {
		e.Data, _ = json.Marshal(data)
	}
	return e
}

// internalError is a -32603 error: the session cannot serve tools (the
// workspace could not be opened) or the server has a bug.
func internalError(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
}

// cancelledID reads the requestId of a notifications/cancelled.
func cancelledID(req *jsonrpc.Request) (jsonrpc.ID, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) != nil || !wire.ValidID(p.RequestID) || string(p.RequestID) == "null" {
		return jsonrpc.ID{}, false
	}
	return sdkID(p.RequestID)
}
