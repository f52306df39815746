package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"steerable.dev/sidecar/protocol"
)

// kind is what a valid frame is.
type kind int

const (
	kindRequest      kind = iota + 1 // method and id
	kindNotification                 // method, no id
	kindResponse                     // id and exactly one of result, error
)

// message is one incoming frame, read once: the members a JSON-RPC message
// may have, as spans of the frame (nil when absent).
type message struct {
	kind   kind
	id     requestID
	method string
	params json.RawMessage // nil when absent or null
	result json.RawMessage
	err    *wireError // a response's error object
}

// wireError is a JSON-RPC error object as a host sends one.
type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// requestID is an id as it came on the wire and as a map key. raw is echoed
// in the reply byte for byte; key is the same for every spelling of one id
// (7 and 7, "a" and "\u0061") and differs between 7 and "7".
type requestID struct {
	raw json.RawMessage
	key string
}

func (id requestID) String() string { return string(id.raw) }

// newID reads a valid id (validID): a string or a non-negative integer.
func newID(raw json.RawMessage) requestID {
	if raw[0] == '"' {
		return requestID{raw: raw, key: "s" + protocol.Unquote(raw)}
	}
	n, _ := strconv.ParseUint(string(raw), 10, 63)
	return requestID{raw: raw, key: "n" + strconv.FormatUint(n, 10)}
}

// frameError is the reply owed to an incoming frame that cannot be served:
// its id (JSON null when it could not be read) and the error.
type frameError struct {
	id   json.RawMessage
	code protocol.Code
	msg  string
}

var nullID = json.RawMessage("null")

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

// parseFrame decides what one complete frame is (SPEC §1 "Robust
// reading"): a request, a notification or a response, or an error to
// answer — not JSON (-32700), batches, non-objects, wrong version, bad ids,
// non-string methods, scalar params, messages that are neither request nor
// response (-32600). A malformed response that still names a valid id comes
// back as a kindResponse message beside its error, so the reverse call
// waiting for that id can end.
func parseFrame(b []byte) (message, *frameError) {
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		return message{}, &frameError{nullID, protocol.CodeParse, "parse error: " + syntaxError(b)}
	}
	env, ok := readEnvelope(b)
	switch {
	case ok:
	case b[0] == '[':
		return message{}, &frameError{nullID, protocol.CodeInvalidRequest, "batch requests are not supported; send one JSON object per frame"}
	default:
		return message{}, &frameError{nullID, protocol.CodeInvalidRequest, "not a JSON-RPC message: expected a JSON object"}
	}
	idOK := env.id != nil && validID(env.id)
	replyID := nullID
	if idOK {
		replyID = env.id
	}
	bad := func(format string, args ...any) *frameError {
		return &frameError{replyID, protocol.CodeInvalidRequest, fmt.Sprintf(format, args...)}
	}
	hasMethod, hasResult, hasError := env.method != nil, env.result != nil, env.error != nil
	if !hasMethod {
		return parseResponse(env, idOK, hasResult, hasError, bad)
	}
	switch {
	case string(env.jsonrpc) != `"2.0"`:
		return message{}, bad(`invalid request: "jsonrpc" must be "2.0"`)
	case hasResult || hasError:
		return message{}, bad("invalid request: not a request, a notification or a response")
	case env.id != nil && (!idOK || string(env.id) == "null"):
		return message{}, bad("invalid request: id must be a string or a non-negative integer")
	case env.method[0] != '"':
		return message{}, bad("invalid request: method must be a string")
	case env.params != nil && !isStructured(env.params):
		return message{}, bad("invalid request: params must be an object or an array")
	}
	m := message{kind: kindNotification, method: methodName(env.method), params: orNil(env.params)}
	if env.id != nil {
		m.kind, m.id = kindRequest, newID(env.id)
	}
	return m, nil
}

// parseResponse handles a frame without a method: a reply to a reverse call.
func parseResponse(env envelope, idOK, hasResult, hasError bool, bad func(string, ...any) *frameError) (message, *frameError) {
	var m message
	if idOK && string(env.id) != "null" {
		m = message{kind: kindResponse, id: newID(env.id)}
	}
	switch {
	case string(env.jsonrpc) != `"2.0"`:
		return m, bad(`invalid request: "jsonrpc" must be "2.0"`)
	case env.id == nil || hasResult == hasError:
		return m, bad("invalid request: not a request, a notification or a response")
	case !idOK:
		return m, bad("invalid response: id must be a string or a non-negative integer")
	case hasError:
		var e wireError
		if env.error[0] != '{' || json.Unmarshal(env.error, &e) != nil {
			return m, bad("invalid response: error must be an object {code: integer, message: string}")
		}
		m.err = &e
	default:
		m.result = env.result
	}
	return m, nil // kind 0 for a valid response with a null id: nothing waits for it
}

// syntaxError describes why b is not JSON.
func syntaxError(b []byte) string {
	if err := json.Unmarshal(b, new(json.RawMessage)); err != nil {
		return err.Error()
	}
	return "invalid JSON"
}

// methodName unquotes a method, reusing the method table's string for the
// methods it knows (no allocation on the hot path).
func methodName(raw []byte) string {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		if name, ok := knownMethods[string(raw[1:len(raw)-1])]; ok {
			return name
		}
	}
	return protocol.Unquote(raw)
}

// validID accepts what an id may be: a string, a non-negative integer that
// fits in int64, or null.
func validID(raw []byte) bool {
	switch {
	case string(raw) == "null":
		return true
	case raw[0] == '"':
		return true // json.Valid checked the string
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n >= 0
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

// errorFrame renders the reply for a frameError.
func errorFrame(fe *frameError) []byte {
	return appendError(nil, fe.id, &protocol.Error{Code: fe.code, Message: fe.msg})
}
