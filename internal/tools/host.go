package tools

import (
	"context"
	"errors"
)

// Host is the reverse channel to the process that spawned the sidecar: the
// sidecar's own requests (ask_user.request, approval.request, tool.invoke of
// host tools, web_search.request) and notifications (tool.progress).
//
// Call returns *protocol.Error when the host answers with an error (so
// errors.Is(err, protocol.ErrMethodNotFound) works), ErrHostGone when there
// is no host or it went away, and ctx.Err() when ctx ends first. It never
// blocks past ctx.
type Host interface {
	Call(ctx context.Context, method string, params, result any) error
	Notify(ctx context.Context, method string, params any) error
}

// ErrHostGone means no host can answer: none is connected (the CLI), it
// closed its input, or writing to it failed.
var ErrHostGone = errors.New("host is not connected")

// NoHost is the Host of a process without one (the CLI): every call fails
// with ErrHostGone and notifications are dropped.
type NoHost struct{}

// Call implements Host.
func (NoHost) Call(context.Context, string, any, any) error { return ErrHostGone }

// Notify implements Host.
func (NoHost) Notify(context.Context, string, any) error { return nil }

var _ Host = NoHost{}
