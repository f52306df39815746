package plugins

import (
	"context"
	"log/slog"

	"github.com/rs/zerolog"
)

// slogToZerolog hands the MCP SDK's own log records (a dropped malformed
// tool, a jsonrpc2 internal error) to the sidecar's logger, tagged like
// every other line of the plugin. Debug records are left out: the SDK logs
// every message at that level.
type slogToZerolog struct {
	log   zerolog.Logger
	attrs []slog.Attr
}

func newSlog(log zerolog.Logger) *slog.Logger { return slog.New(&slogToZerolog{log: log}) }

func (h *slogToZerolog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *slogToZerolog) Handle(_ context.Context, r slog.Record) error {
	ev := h.log.Info()
	switch {
	case r.Level >= slog.LevelError:
		ev = h.log.Error()
	case r.Level >= slog.LevelWarn:
		ev = h.log.Warn()
	}
	add := func(a slog.Attr) bool {
		ev = ev.Str(a.Key, a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	ev.Str("component", "mcp-sdk").Msg(r.Message)
	return nil
}

func (h *slogToZerolog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &slogToZerolog{log: h.log, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...)}
}

func (h *slogToZerolog) WithGroup(string) slog.Handler { return h }
