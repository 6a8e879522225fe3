package main

import (
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/internal/serving"
)

// newLogger is the logger of LOG_FORMAT: text as rlpkit writes it, or JSON
// with the reference's field names (logrus's JSON formatter as the
// reference sets it): "@timestamp" in RFC 3339 with nanoseconds,
// "@message", and "level" in lower case, warnings as "warning".
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	if format != "json" {
		return serving.NewLogger(w, format, level)
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: referenceFields}))
}

// referenceFields renames the built-in fields as the reference writes them.
func referenceFields(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		return slog.String("@timestamp", a.Value.Time().Format(time.RFC3339Nano))
	case slog.MessageKey:
		return slog.Attr{Key: "@message", Value: a.Value}
	case slog.LevelKey:
		l, _ := a.Value.Any().(slog.Level)
		name := strings.ToLower(l.String())
		if l == slog.LevelWarn {
			name = "warning"
		}
		return slog.String(slog.LevelKey, name)
	}
	return a
}
