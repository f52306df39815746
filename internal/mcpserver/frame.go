package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"steerable.dev/sidecar/protocol"
)

// errFrameTooLarge is a line longer than the frame limit; it has been read
// and discarded through its newline.
var errFrameTooLarge = protocol.ErrFrameTooLarge

// lineReader reads newline-delimited frames of at most max bytes.
type lineReader struct {
	in  *bufio.Reader
	max int
}

// next returns one frame (protocol.ReadLine).
func (r *lineReader) next() ([]byte, error) { return protocol.ReadLine(r.in, r.max) }

// badFrame is the error reply owed to a frame that never reaches the SDK:
// the SDK's connection closes on anything it cannot decode, so everything it
// would choke on is answered here and the next line is read.
type badFrame struct {
	id   jsonrpc.ID // zero (JSON null) when it could not be read
	code int64
	msg  string
}

// envelope is every member a JSON-RPC message may have, kept raw: one
// decoding pass validates the JSON and says which members are present.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// decodeFrame turns one line into a message for the SDK, or says why it
// cannot be one (JSON-RPC 2.0 §5.1 codes): not JSON → -32700 with a null id;
// a batch (MCP 2025-06-18 removed batching), a non-object, a wrong version
// tag, an id that is neither a string nor an integer, a method that is not
// a string, or something that is neither request nor response → -32600,
// with the request's id when it could be read.
func decodeFrame(line []byte) (jsonrpc.Message, *badFrame) {
	line = bytes.TrimSpace(line)
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax) || len(line) == 0:
			return nil, &badFrame{code: jsonrpc.CodeParseError, msg: fmt.Sprintf("parse error: %v", err)}
		case line[0] == '[':
			return nil, &badFrame{code: jsonrpc.CodeInvalidRequest, msg: "batch requests are not supported (MCP removed batching in 2025-06-18); send one JSON-RPC object per line"}
		default:
			return nil, &badFrame{code: jsonrpc.CodeInvalidRequest, msg: "not a JSON-RPC message: expected a JSON object"}
		}
	}
	id, idOK := frameID(env.ID)
	bad := func(format string, args ...any) *badFrame {
		return &badFrame{id: id, code: jsonrpc.CodeInvalidRequest, msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case string(env.JSONRPC) != `"2.0"`:
		return nil, bad(`invalid request: "jsonrpc" must be "2.0"`)
	case env.ID != nil && !idOK:
		return nil, &badFrame{code: jsonrpc.CodeInvalidRequest, msg: "invalid request: id must be a string or an integer"}
	case env.Method != nil && env.Method[0] != '"':
		return nil, bad("invalid request: method must be a string")
	case env.Method == nil && (env.ID == nil || (env.Result == nil) == (env.Error == nil)):
		return nil, bad("invalid request: not a request, a notification or a response")
	}
	return message(env, id)
}

// message builds the SDK's message from a checked envelope. Building it
// here, rather than with jsonrpc.DecodeMessage, decodes each frame once.
func message(env envelope, id jsonrpc.ID) (jsonrpc.Message, *badFrame) {
	if env.Method != nil {
		var method string
		if err := json.Unmarshal(env.Method, &method); err != nil {
			return nil, &badFrame{id: id, code: jsonrpc.CodeInvalidRequest, msg: fmt.Sprintf("invalid request: method: %v", err)}
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: env.Params}, nil
	}
	resp := &jsonrpc.Response{ID: id, Result: env.Result}
	if env.Error != nil {
		var werr jsonrpc.Error
		if err := json.Unmarshal(env.Error, &werr); err != nil || env.Error[0] != '{' {
			return nil, &badFrame{id: id, code: jsonrpc.CodeInvalidRequest, msg: "invalid response: error must be an object {code, message}"}
		}
		resp.Error = &werr
	}
	return resp, nil
}

// frameID reads a request id: a string or an integer (MCP forbids null).
// An absent id is valid (a notification or a bad frame's null).
func frameID(raw json.RawMessage) (jsonrpc.ID, bool) {
	switch {
	case raw == nil:
		return jsonrpc.ID{}, true
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > maxExactID || n < -maxExactID { // the SDK carries numeric ids as float64
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// maxExactID is the largest integer a float64 holds exactly.
const maxExactID = 1 << 53

// errorFrame encodes an error reply. It is written by hand because the SDK
// omits a null id, which JSON-RPC requires ("id": null) when the request's
// id could not be read.
func errorFrame(id jsonrpc.ID, werr *jsonrpc.Error) []byte {
	rawID := []byte("null")
	if id.IsValid() {
		rawID, _ = json.Marshal(id.Raw())
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", rawID, werr})
	return append(b, '\n')
}
