package logsink

import (
	"context"
	"log/slog"

	"github.com/rs/zerolog"
)

// Slog sends a library's slog records (the MCP SDK's, in the MCP server and
// the plugin client) to the sidecar's zerolog logger, tagged with
// component. level maps each record's level to the line's; a record it
// maps to zerolog.Disabled, or below the logger's level, is left out.
// Attributes become string members; groups are flattened.
func Slog(log zerolog.Logger, component string, level func(slog.Level) zerolog.Level) *slog.Logger {
	return slog.New(slogHandler{log: log, component: component, level: level})
}

type slogHandler struct {
	log       zerolog.Logger
	component string
	level     func(slog.Level) zerolog.Level
	attrs     []slog.Attr
}

func (h slogHandler) Enabled(_ context.Context, l slog.Level) bool {
	zl := h.level(l)
	return zl != zerolog.Disabled && zl >= h.log.GetLevel()
}

func (h slogHandler) Handle(_ context.Context, r slog.Record) error {
	ev := h.log.WithLevel(h.level(r.Level)).Str("component", h.component)
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

func (h slogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return h
}

func (h slogHandler) WithGroup(string) slog.Handler { return h }
