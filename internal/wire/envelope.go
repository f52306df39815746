package wire

import (
	"bytes"
	"encoding/json"
	"fmt"

	"steerable.dev/sidecar/protocol"
)

// Kind is what a valid frame is.
type Kind int

const (
	Request      Kind = iota + 1 // method and id
	Notification                 // method, no id
	Response                     // id and exactly one of result, error
)

// Message is one incoming frame, read once: the members a JSON-RPC message
// may have, as spans of the frame (nil when absent).
type Message struct {
	Kind   Kind
	ID     ID
	Method string
	Params json.RawMessage // nil when absent or null
	Result json.RawMessage
	Error  *ErrorObject // a response's error object
}

// ErrorObject is a JSON-RPC error object as a peer sends one.
type ErrorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// FrameError is the reply owed to an incoming frame that cannot be served:
// its id (JSON null when it could not be read) and the error.
type FrameError struct {
	ID      json.RawMessage
	Code    protocol.Code
	Message string
}

func (fe *FrameError) Error() string { return fe.Message }

// Reply renders the error reply for fe, one compact line.
func (fe *FrameError) Reply() []byte {
	return AppendError(nil, fe.ID, protocol.WireError{Code: fe.Code, Message: fe.Message,
		Data: map[string]any{"kind": fe.Code.Kind()}})
}

// envelope is every member a JSON-RPC message may have, raw (a member set
// to null is present, as the literal "null").
type envelope struct {
	jsonrpc, id, method, params, result, error []byte
}

// readEnvelope splits a valid JSON object into its JSON-RPC members; other
// members are ignored, and a repeated member counts once, the last
// (encoding/json's rule).
func readEnvelope(b []byte) (envelope, bool) {
	var env envelope
	ok := protocol.EachMember(b, func(key, value []byte) {
		switch string(key) {
		case "jsonrpc":
			env.jsonrpc = value
		case "id":
			env.id = value
		case "method":
			env.method = value
		case "params":
			env.params = value
		case "result":
			env.result = value
		case "error":
			env.error = value
		}
	})
	return env, ok
}

// Parse decides what one complete frame is (SPEC §1 "Robust reading"): a
// request, a notification or a response, or an error to answer — not JSON
// (-32700), batches, non-objects, wrong version, bad ids, non-string
// methods, scalar params, messages that are neither request nor response
// (-32600). A malformed response that still names a valid id comes back as
// a Response message beside its error, so the call waiting for that id can
// end. known maps method names to interned strings (nil: none), so a
// method the table knows costs no allocation.
func Parse(b []byte, known map[string]string) (Message, *FrameError) {
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		return Message{}, &FrameError{NullID, protocol.CodeParse, "parse error: " + syntaxError(b)}
	}
	env, ok := readEnvelope(b)
	switch {
	case ok:
	case b[0] == '[':
		return Message{}, &FrameError{NullID, protocol.CodeInvalidRequest, "batch requests are not supported; send one JSON object per frame"}
	default:
		return Message{}, &FrameError{NullID, protocol.CodeInvalidRequest, "not a JSON-RPC message: expected a JSON object"}
	}
	idOK := env.id != nil && ValidID(env.id)
	replyID := NullID
	if idOK {
		replyID = env.id
	}
	bad := func(format string, args ...any) *FrameError {
		return &FrameError{replyID, protocol.CodeInvalidRequest, fmt.Sprintf(format, args...)}
	}
	hasMethod, hasResult, hasError := env.method != nil, env.result != nil, env.error != nil
	if !hasMethod {
		return parseResponse(env, idOK, hasResult, hasError, bad)
	}
	switch {
	case string(env.jsonrpc) != `"2.0"`:
		return Message{}, bad(`invalid request: "jsonrpc" must be "2.0"`)
	case hasResult || hasError:
		return Message{}, bad("invalid request: not a request, a notification or a response")
	case env.id != nil && (!idOK || string(env.id) == "null"):
		return Message{}, bad("invalid request: id must be a string or a non-negative integer")
	case env.method[0] != '"':
		return Message{}, bad("invalid request: method must be a string")
	case env.params != nil && !isStructured(env.params):
		return Message{}, bad("invalid request: params must be an object or an array")
	}
	m := Message{Kind: Notification, Method: methodName(env.method, known), Params: orNil(env.params)}
	if env.id != nil {
		m.Kind, m.ID = Request, NewID(env.id)
	}
	return m, nil
}

// parseResponse handles a frame without a method: a reply to one of our
// requests.
func parseResponse(env envelope, idOK, hasResult, hasError bool, bad func(string, ...any) *FrameError) (Message, *FrameError) {
	var m Message
	if idOK && string(env.id) != "null" {
		m = Message{Kind: Response, ID: NewID(env.id)}
	}
	switch {
	case string(env.jsonrpc) != `"2.0"`:
		return m, bad(`invalid request: "jsonrpc" must be "2.0"`)
	case env.id == nil || hasResult == hasError:
		return m, bad("invalid request: not a request, a notification or a response")
	case !idOK:
		return m, bad("invalid response: id must be a string or a non-negative integer")
	case hasError:
		var e ErrorObject
		if env.error[0] != '{' || json.Unmarshal(env.error, &e) != nil {
			return m, bad("invalid response: error must be an object {code: integer, message: string}")
		}
		m.Error = &e
	default:
		m.Result = env.result
	}
	return m, nil // Kind 0 for a valid response with a null id: nothing waits for it
}

// syntaxError describes why b is not JSON.
func syntaxError(b []byte) string {
	if err := json.Unmarshal(b, new(json.RawMessage)); err != nil {
		return err.Error()
	}
	return "invalid JSON"
}

// methodName unquotes a method, reusing known's string for the methods it
// has.
func methodName(raw []byte, known map[string]string) string {
	if known != nil && len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		if name, ok := known[string(raw[1:len(raw)-1])]; ok {
			return name
		}
	}
	return protocol.Unquote(raw)
}

func isStructured(raw []byte) bool {
	return raw[0] == '{' || raw[0] == '[' || string(raw) == "null"
}

// orNil maps an absent or null member to nil.
func orNil(raw []byte) json.RawMessage {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	return raw
}
