package runcode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"steerable.dev/sidecar/protocol"
)

// Version is the bridge protocol's version: every message carries it as
// "v" (tool_contract.json, runCode.bridge).
const Version = 1

// The message types. start and reply go from the sidecar to the child (fd
// 4); call and done from the child to the sidecar (fd 3).
const (
	TypeStart = "start"
	TypeReply = "reply"
	TypeCall  = "call"
	TypeDone  = "done"
)

// The kinds of a failed done: the code did not compile, it raised, or its
// return value could not be sent.
const (
	KindSyntax    = "syntax"
	KindException = "exception"
	KindResult    = "result"
)

// maxToolName bounds the tool name of a call (the registry's names are at
// most 128 characters; a longer one is unknown anyway, and quoted in logs).
const maxToolName = 256

// Call is a nested tool call the program makes.
type Call struct {
	ID        int64
	Tool      string
	Arguments json.RawMessage // a JSON object
}

// Done is how the program ended: its return value (OK), or the error.
type Done struct {
	OK        bool
	Value     json.RawMessage // OK: the return value, any JSON value
	Error     string          // !OK: "<Type>: <message>"
	Kind      string          // !OK: KindSyntax, KindException or KindResult
	Traceback string          // !OK: trimmed to the program's own lines
	Line      int             // !OK: the program line it failed on (0: unknown)
}

// Frame is a decoded child → sidecar message: a Call or a Done.
type Frame interface{ frame() }

func (Call) frame() {}
func (Done) frame() {}

// ErrFrame marks every reason a child's frame is refused.
var ErrFrame = errors.New("malformed bridge frame")

// wire is every field a child → sidecar message may carry; Decode checks
// which belong to its type.
type wire struct {
	V         *int            `json:"v"`
	Type      *string         `json:"type"`
	ID        *int64          `json:"id"`
	Tool      *string         `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	OK        *bool           `json:"ok"`
	Value     json.RawMessage `json:"value"`
	Error     *string         `json:"error"`
	Kind      *string         `json:"kind"`
	Traceback *string         `json:"traceback"`
	Line      *int            `json:"line"`
}

// Decode parses one line from the child: a JSON object with "v":1 and a
// known "type", with exactly that type's fields. Anything else is an error
// wrapping ErrFrame: the child is model-directed code and may write
// anything on fd 3.
func Decode(line []byte) (Frame, error) {
	var w wire
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFrame, err)
	}
	if rest := bytes.TrimSpace(line[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("%w: trailing data after the JSON object", ErrFrame)
	}
	switch {
	case w.V == nil:
		return nil, fmt.Errorf(`%w: no "v" (the protocol version)`, ErrFrame)
	case *w.V != Version:
		return nil, fmt.Errorf(`%w: version %d, this sidecar speaks %d`, ErrFrame, *w.V, Version)
	case w.Type == nil:
		return nil, fmt.Errorf(`%w: no "type"`, ErrFrame)
	}
	switch *w.Type {
	case TypeCall:
		return w.call()
	case TypeDone:
		return w.done()
	}
	return nil, fmt.Errorf("%w: unknown type %s", ErrFrame, strconv.Quote(*w.Type))
}

func (w wire) call() (Frame, error) {
	switch {
	case w.OK != nil || w.Value != nil || w.Error != nil || w.Kind != nil || w.Traceback != nil || w.Line != nil:
		return nil, fmt.Errorf("%w: a call carries only id, tool and arguments", ErrFrame)
	case w.ID == nil || *w.ID < 1:
		return nil, fmt.Errorf(`%w: a call needs a positive integer "id"`, ErrFrame)
	case w.Tool == nil || *w.Tool == "":
		return nil, fmt.Errorf(`%w: a call needs a "tool" name`, ErrFrame)
	case len(*w.Tool) > maxToolName:
		return nil, fmt.Errorf("%w: tool name of %d bytes (at most %d)", ErrFrame, len(*w.Tool), maxToolName)
	}
	args := bytes.TrimSpace(w.Arguments)
	if len(args) == 0 {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return nil, fmt.Errorf(`%w: "arguments" must be a JSON object`, ErrFrame)
	}
	return Call{ID: *w.ID, Tool: *w.Tool, Arguments: json.RawMessage(args)}, nil
}

func (w wire) done() (Frame, error) {
	switch {
	case w.ID != nil || w.Tool != nil || w.Arguments != nil:
		return nil, fmt.Errorf("%w: done carries no id, tool or arguments", ErrFrame)
	case w.OK == nil:
		return nil, fmt.Errorf(`%w: done needs "ok"`, ErrFrame)
	case *w.OK:
		if w.Value == nil || w.Error != nil || w.Kind != nil || w.Traceback != nil || w.Line != nil {
			return nil, fmt.Errorf(`%w: a successful done carries "value" and nothing else`, ErrFrame)
		}
		return Done{OK: true, Value: w.Value}, nil
	}
	d := Done{Kind: deref(w.Kind), Traceback: deref(w.Traceback), Error: deref(w.Error)}
	if w.Line != nil {
		d.Line = *w.Line
	}
	switch {
	case w.Value != nil:
		return nil, fmt.Errorf(`%w: a failed done carries no "value"`, ErrFrame)
	case d.Error == "":
		return nil, fmt.Errorf(`%w: a failed done needs a non-empty "error"`, ErrFrame)
	case d.Kind != KindSyntax && d.Kind != KindException && d.Kind != KindResult:
		return nil, fmt.Errorf(`%w: "kind" must be syntax, exception or result`, ErrFrame)
	case d.Line < 0:
		return nil, fmt.Errorf(`%w: "line" must not be negative`, ErrFrame)
	}
	return d, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// start is the first message to the child: the program and its bound.
type start struct {
	V              int    `json:"v"`
	Type           string `json:"type"`
	Code           string `json:"code"`
	MaxResultBytes int    `json:"maxResultBytes"`
}

// refusal answers a call the sidecar refused to run (the call limit); a
// result is assembled by EncodeResult.
type refusal struct {
	V     int    `json:"v"`
	Type  string `json:"type"`
	ID    int64  `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// EncodeStart is the start message, newline-terminated.
func EncodeStart(code string, maxResultBytes int) []byte {
	return line(start{V: Version, Type: TypeStart, Code: code, MaxResultBytes: maxResultBytes})
}

// EncodeResult answers call id with the nested ToolResult. A result that
// cannot be encoded (a tool put a NaN in its data) is replaced by a failure
// saying so. The frame is assembled around the result's own encoding —
// MarshalJSON called directly, since encoding/json would re-scan its
// output; it is compact, so the frame stays one line. It is on every nested
// call's path.
func EncodeResult(id int64, res protocol.ToolResult) []byte {
	body, err := res.MarshalJSON()
	if err != nil {
		body, _ = protocol.ToolResult{Success: false,
			Error: fmt.Sprintf("the result of this call could not be encoded as JSON: %v", err)}.MarshalJSON()
	}
	b := make([]byte, 0, len(body)+64)
	b = append(b, `{"v":1,"type":"reply","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"ok":true,"result":`...)
	b = append(b, body...)
	return append(b, "}\n"...)
}

// EncodeRefusal answers call id with the sidecar's refusal to run it.
func EncodeRefusal(id int64, reason string) []byte {
	return line(refusal{V: Version, Type: TypeReply, ID: id, OK: false, Error: reason})
}

// line marshals v compactly (encoding/json never writes a raw newline)
// and terminates it.
func line(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("runcode: encoding a bridge message: " + err.Error()) // only fixed, encodable types reach here
	}
	return append(b, '\n')
}
