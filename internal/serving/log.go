package serving

import (
	"io"
	"log/slog"
)

// NewLogger returns a logger writing one line per record on w, from level
// up: JSON objects when format is "json", else slog's key=value text.
func NewLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
