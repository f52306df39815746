package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"

	"steerable.dev/sidecar/protocol"
)

// frameError is the reply owed to an incoming frame that never reaches the
// connection library: its id (JSON null when it could not be read) and the
// error.
type frameError struct {
	id   json.RawMessage
	code protocol.Code
	msg  string
}

var nullID = json.RawMessage("null")

// checkFrame decides whether one complete frame is a JSON-RPC 2.0 message the
// library can take (SPEC §1 "Robust reading"). The library itself closes the
// connection on anything it cannot decode, so everything it would choke on is
// answered here: not JSON (-32700), batches, non-objects, wrong version,
// bad ids, non-string methods, scalar params, messages that are neither
// request nor response (-32600).
func checkFrame(b []byte) *frameError {
	b = bytes.TrimSpace(b)
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax) || len(b) == 0:
			return &frameError{nullID, protocol.CodeParse, fmt.Sprintf("parse error: %v", err)}
		case b[0] == '[':
			return &frameError{nullID, protocol.CodeInvalidRequest, "batch requests are not supported; send one JSON object per frame"}
		default:
			return &frameError{nullID, protocol.CodeInvalidRequest, "not a JSON-RPC message: expected a JSON object"}
		}
	}
	hasID, hasMethod := env.ID != nil, env.Method != nil
	hasResult, hasError := env.Result != nil, env.Error != nil
	idOK := hasID && validID(env.ID)
	replyID := nullID
	if idOK {
		replyID = env.ID
	}
	bad := func(format string, args ...any) *frameError {
		return &frameError{replyID, protocol.CodeInvalidRequest, fmt.Sprintf(format, args...)}
	}
	if string(env.JSONRPC) != `"2.0"` {
		return bad(`invalid request: "jsonrpc" must be "2.0"`)
	}
	switch {
	case hasMethod && !hasResult && !hasError:
		if hasID && (!idOK || string(env.ID) == "null") {
			return bad("invalid request: id must be a string or a non-negative integer")
		}
		if env.Method[0] != '"' {
			return bad("invalid request: method must be a string")
		}
		if env.Params != nil && !isStructured(env.Params) {
			return bad("invalid request: params must be an object or an array")
		}
		return nil
	case !hasMethod && hasID && (hasResult != hasError):
		if !idOK {
			return bad("invalid response: id must be a string or a non-negative integer")
		}
		var e jsonrpc2.Error
		if hasError && (!isObject(env.Error) || json.Unmarshal(env.Error, &e) != nil) {
			return bad("invalid response: error must be an object {code: integer, message: string}")
		}
		return nil
	}
	return bad("invalid request: not a request, a notification or a response")
}

// envelope is every member a JSON-RPC message may have, kept raw: one
// decoding pass both validates the JSON and says which members are present
// (a member set to null is present, as the literal "null").
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// validID accepts what the library can carry: a string, a non-negative
// integer that fits in int64, or null.
func validID(raw json.RawMessage) bool {
	s := string(raw)
	if s == "null" {
		return true
	}
	if len(s) > 0 && s[0] == '"' {
		var str string
		return json.Unmarshal(raw, &str) == nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n >= 0
}

func isStructured(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[' || string(raw) == "null")
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// errorFrame renders the reply for a frameError.
func errorFrame(fe *frameError) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string             `json:"jsonrpc"`
		ID      json.RawMessage    `json:"id"`
		Error   protocol.WireError `json:"error"`
	}{"2.0", fe.id, protocol.WireError{Code: fe.code, Message: fe.msg, Data: map[string]any{"kind": fe.code.Kind()}}})
	return b
}
