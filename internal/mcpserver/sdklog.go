package mcpserver

import (
	"context"
	"log/slog"

	"github.com/rs/zerolog"
)

// sdkLog sends the SDK's slog records to the sidecar's zerolog logger on
// stderr. The SDK narrates every connection at info; that is debug here, and
// its errors (a client's protocol misuse) are warnings.
type sdkLog struct {
	log   zerolog.Logger
	attrs []slog.Attr
}

func (h sdkLog) level(l slog.Level) zerolog.Level {
	if l >= slog.LevelWarn {
		return zerolog.WarnLevel
	}
	return zerolog.DebugLevel
}

// Enabled implements slog.Handler.
func (h sdkLog) Enabled(_ context.Context, l slog.Level) bool {
	return h.level(l) >= h.log.GetLevel()
}

// Handle implements slog.Handler.
func (h sdkLog) Handle(_ context.Context, r slog.Record) error {
	ev := h.log.WithLevel(h.level(r.Level)).Str("component", "mcp-sdk")
	add := func(a slog.Attr) bool {
		ev = ev.Str(a.Key, a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	ev.Msg(r.Message)
	return nil
}

// WithAttrs implements slog.Handler.
func (h sdkLog) WithAttrs(as []slog.Attr) slog.Handler {
	h.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return h
}

// WithGroup implements slog.Handler; groups are flattened.
func (h sdkLog) WithGroup(string) slog.Handler { return h }

var _ slog.Handler = sdkLog{}
