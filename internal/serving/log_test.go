package serving

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestNewLogger(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(&buf, "json", slog.LevelWarn)
	log.Info("dropped")
	log.Warn("kept", "k", "v")
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil || m["msg"] != "kept" || m["level"] != "WARN" || m["k"] != "v" {
		t.Errorf("json logger wrote %q (%v), want one WARN line kept with k=v", buf.String(), err)
	}
	for _, format := range []string{"text", ""} {
		buf.Reset()
		log = NewLogger(&buf, format, slog.LevelDebug)
		log.Debug("kept", "k", "v")
		if got := buf.String(); !strings.Contains(got, "level=DEBUG msg=kept k=v\n") {
			t.Errorf("format %q: logger wrote %q, want a DEBUG text line", format, got)
		}
	}
}
