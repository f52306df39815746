package benchkit

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The wire is newline-delimited JSON-RPC 2.0: one JSON object per line, in
// both directions.

// request is a request frame without its id, `"method":M[,"params":P]`,
// encoded once so that a timed loop pays only for splicing in the id.
type request []byte

func newRequest(method string, params any) (request, error) {
	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	req := append(request(`"method":`), m...)
	if params == nil {
		return req, nil
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s params: %w", method, err)
	}
	req = append(req, `,"params":`...)
	return append(req, p...), nil
}

// appendCall appends the line {"jsonrpc":"2.0","id":ID,REQ} to dst.
func appendCall(dst []byte, id int, req request) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, int64(id), 10)
	dst = append(dst, ',')
	dst = append(dst, req...)
	return append(dst, "}\n"...)
}

// appendNotification appends the line {"jsonrpc":"2.0",REQ} to dst.
func appendNotification(dst []byte, req request) []byte {
	dst = append(dst, `{"jsonrpc":"2.0",`...)
	dst = append(dst, req...)
	return append(dst, "}\n"...)
}

// header is what telling frames apart needs. Replies are matched by the
// parsed id, not by looking for `"id":N` in the text: the reference servers
// put "id" last, after a result that may itself contain that string. The
// timed loops decode only these two fields (a result is scanned, not
// copied), so the client's share of a round trip stays as small as it was
// when each program had its own client.
type header struct {
	ID     *int    `json:"id"`
	Method *string `json:"method"`
}

// kind is what a frame is to a client waiting for replies.
type kind int

const (
	other  kind = iota // a notification or a request from the server
	reply              // a reply with a numeric id
	orphan             // a reply with a null id (see header.kind)
)

func (h header) kind() kind {
	switch {
	case h.Method != nil:
		return other
	case h.ID != nil:
		return reply
	}
	// Neither id nor method: JSON-RPC answers with a null id only a request
	// it could not read, so no reply by id will follow.
	return orphan
}

// peek reads the header of a line; ok is false for a line that is not a
// JSON-RPC frame (stray output, which callers skip). Only the top level is
// scanned and only id and method are decoded: the other members — a result
// may be most of a 100 kB line — are skipped, so the client's share of a
// round trip does not grow with the reply (see scan.go).
func peek(line []byte) (h header, ok bool) {
	ok = topMembers(line, func(key string, value []byte) bool {
		switch key {
		case "id":
			if string(value) == "null" {
				h.ID = nil
				return true
			}
			n, err := strconv.Atoi(string(value))
			h.ID = &n
			return err == nil
		case "method":
			var m string
			h.Method = &m
			return json.Unmarshal(value, &m) == nil
		}
		return true
	})
	return h, ok
}

// message is a whole frame, decoded in one pass where the result is wanted.
type message struct {
	header
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func decode(line []byte) (m message, ok bool) {
	return m, json.Unmarshal(line, &m) == nil
}

// outcome is the result of a reply, or its error as a Go error.
func (m message) outcome() (json.RawMessage, error) {
	if m.Error != nil {
		return nil, fmt.Errorf("%s", m.Error)
	}
	return m.Result, nil
}
