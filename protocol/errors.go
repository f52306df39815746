package protocol

import "fmt"

// Code is a JSON-RPC error code (SPEC §1 "Error codes").
type Code int64

// The error codes of SPEC §1.
const (
	CodeParse          Code = -32700
	CodeInvalidRequest Code = -32600
	CodeMethodNotFound Code = -32601
	CodeInvalidParams  Code = -32602
	CodeInternal       Code = -32603
	CodeCancelled      Code = -32800
	CodePolicyDenied   Code = -32002
	CodeBusy           Code = -32003
	CodePluginState    Code = -32010
	CodePluginLoad     Code = -32011
)

var kinds = map[Code]string{
	CodeParse:          "parse",
	CodeInvalidRequest: "invalid_request",
	CodeMethodNotFound: "method_not_found",
	CodeInvalidParams:  "invalid_params",
	CodeInternal:       "internal",
	CodeCancelled:      "cancelled",
	CodePolicyDenied:   "policy_denied",
	CodeBusy:           "busy",
	CodePluginState:    "plugin_state",
	CodePluginLoad:     "plugin_load",
}

// Kind is the category name carried in error.data.kind.
func (c Code) Kind() string {
	if k, ok := kinds[c]; ok {
		return k
	}
	return "internal"
}

// Error is a JSON-RPC error as the sidecar sends it: code, message, and data
// that always carries "kind". Errors compare by code, so a sentinel matches
// any error of its code through %w wrapping:
//
//	errors.Is(fmt.Errorf("loading: %w", Errorf(CodePluginLoad, "...")), ErrPluginLoad) == true
type Error struct {
	Code    Code
	Message string
	Data    map[string]any
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.Code.Kind(), e.Code, e.Message) }

// Is matches any *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns a copy of e with key set in its data.
func (e *Error) WithData(key string, value any) *Error {
	c := *e
	c.Data = make(map[string]any, len(e.Data)+1)
	for k, v := range e.Data {
		c.Data[k] = v
	}
	c.Data[key] = value
	return &c
}

// Sentinels, one per code, for errors.Is.
var (
	ErrParse          = &Error{Code: CodeParse, Message: "parse error"}
	ErrInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "invalid request"}
	ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "method not found"}
	ErrInvalidParams  = &Error{Code: CodeInvalidParams, Message: "invalid params"}
	ErrInternal       = &Error{Code: CodeInternal, Message: "internal error"}
	ErrCancelled      = &Error{Code: CodeCancelled, Message: "request cancelled"}
	ErrPolicyDenied   = &Error{Code: CodePolicyDenied, Message: "policy denied"}
	ErrBusy           = &Error{Code: CodeBusy, Message: "busy"}
	ErrPluginState    = &Error{Code: CodePluginState, Message: "plugin state"}
	ErrPluginLoad     = &Error{Code: CodePluginLoad, Message: "plugin load"}
)

// WireError is the JSON shape of a JSON-RPC error object, used where a
// package needs to describe one without the connection library.
type WireError struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}
