package mcpserver

import (
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"steerable.dev/sidecar/internal/wire"
	"steerable.dev/sidecar/protocol"
)

// The SDK's messages to and from internal/wire's. A frame is checked and
// split once, by wire.Parse, under the same envelope rules as serve mode;
// what passes becomes the SDK's message here, without a second decoding.
// Replies are assembled by wire's encoders, with the id echoed as the
// client sent it.

// decodeFrame checks one frame (wire.Parse) and builds the SDK's message,
// or returns the error reply it is owed; neither for a response with a
// null id, which nothing waits for.
func decodeFrame(frame []byte) (jsonrpc.Message, *wire.FrameError) {
	m, fe := wire.Parse(frame, nil)
	switch {
	case fe != nil:
		return nil, fe
	case m.Kind == 0:
		return nil, nil
	}
	return sdkMessage(m)
}

// sdkMessage builds the SDK's message from a frame wire.Parse accepted, or
// says why the SDK cannot take it: a numeric id the SDK, which carries
// numeric ids as float64, would not echo exactly.
func sdkMessage(m wire.Message) (jsonrpc.Message, *wire.FrameError) {
	var id jsonrpc.ID
	if m.Kind != wire.Notification {
		var ok bool
		if id, ok = sdkID(m.ID.Raw); !ok {
			return nil, &wire.FrameError{ID: m.ID.Raw, Code: protocol.CodeInvalidRequest,
				Message: "invalid request: a numeric id must be at most 2^53 (MCP SDKs carry ids as float64); use a smaller one or a string"}
		}
	}
	if m.Kind != wire.Response {
		return &jsonrpc.Request{ID: id, Method: m.Method, Params: m.Params}, nil
	}
	resp := &jsonrpc.Response{ID: id, Result: m.Result}
	if m.Error != nil {
		resp.Error = &jsonrpc.Error{Code: m.Error.Code, Message: m.Error.Message, Data: m.Error.Data}
	}
	return resp, nil
}

// sdkID is the SDK's id for a valid, non-null wire id (wire.ValidID).
func sdkID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if raw[0] == '"' {
		id, err := jsonrpc.MakeID(protocol.Unquote(raw))
		return id, err == nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > maxExactID {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// maxExactID is the largest integer a float64 holds exactly.
const maxExactID = 1 << 53

// rawID is id as JSON; JSON null for the zero id (a reply to a frame whose
// id could not be read).
func rawID(id jsonrpc.ID) json.RawMessage {
	if !id.IsValid() {
		return wire.NullID
	}
	b, _ := json.Marshal(id.Raw())
	return b
}

// errorFrame encodes an error reply (JSON-RPC requires "id": null when the
// request's id could not be read; the SDK's encoder would omit it).
func errorFrame(id jsonrpc.ID, werr *jsonrpc.Error) []byte {
	b, err := json.Marshal(werr)
	if err != nil {
		b, _ = json.Marshal(&jsonrpc.Error{Code: werr.Code, Message: werr.Message})
	}
	return wire.AppendErrorJSON(nil, rawID(id), b)
}

// resultFrame encodes a reply whose result the SDK encoded already (compact
// JSON): it is appended as it is, not re-validated.
func resultFrame(id jsonrpc.ID, result json.RawMessage) []byte {
	b, _ := wire.AppendResult(make([]byte, 0, len(result)+64), rawID(id), rawResult(result))
	return b
}

// rawResult appends itself (protocol.JSONAppender): JSON the SDK encoded.
type rawResult json.RawMessage

func (r rawResult) AppendJSON(dst []byte) ([]byte, error) {
	if len(r) == 0 {
		return append(dst, "null"...), nil
	}
	return append(dst, r...), nil
}
