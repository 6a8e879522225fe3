package main

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// LOG_FORMAT=json writes the reference's field names.
func TestJSONLogFields(t *testing.T) {
	var b strings.Builder
	log := newLogger(&b, "json", slog.LevelDebug)
	log.Warn("store unreachable", "store", "redis")
	log.Info("loaded configuration", "domains", 2)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), b.String())
	}
	for i, want := range []struct{ level, msg string }{{"warning", "store unreachable"}, {"info", "loaded configuration"}} {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
			t.Fatal(err)
		}
		if m["level"] != want.level || m["@message"] != want.msg {
			t.Errorf("line %d = %v, want level %q and @message %q", i, m, want.level, want.msg)
		}
		ts, _ := m["@timestamp"].(string)
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("line %d: @timestamp %q: %v", i, ts, err)
		}
		if _, ok := m["msg"]; ok {
			t.Errorf("line %d has msg besides @message: %v", i, m)
		}
	}
}

// The whole service logs so with LOG_FORMAT=json.
func TestRunLogsJSON(t *testing.T) {
	env := baseEnv(t.TempDir())
	env["LOG_FORMAT"] = "json"
	s := start(t, env)
	s.stop()
	first, _, _ := strings.Cut(s.log.String(), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(first), &m); err != nil || m["@message"] == nil || m["@timestamp"] == nil {
		t.Errorf("first log line %q (%v), want JSON with @message and @timestamp", first, err)
	}
}
