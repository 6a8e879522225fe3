package main

import (
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

const exposedWarning = "the debug port listens beyond loopback"

func TestWarnExposedDebug(t *testing.T) {
	for _, tc := range []struct {
		addr string
		warn bool
	}{
		{"0.0.0.0:6070", true},
		{"[::]:6070", true},
		{"10.1.2.3:6070", true},
		{"127.0.0.1:6070", false},
		{"127.0.0.2:6070", false},
		{"[::1]:6070", false},
	} {
		var b syncBuffer
		addr, err := net.ResolveTCPAddr("tcp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		warnExposedDebug(slog.New(slog.NewTextHandler(&b, nil)), addr)
		if got := strings.Contains(b.String(), exposedWarning) && strings.Contains(b.String(), "DEBUG_HOST=127.0.0.1"); got != tc.warn {
			t.Errorf("debug port on %s: warned %v, want %v:\n%s", tc.addr, got, tc.warn, b.String())
		}
		if tc.warn && !strings.Contains(b.String(), "addr="+addr.String()) {
			t.Errorf("warning for %s does not name the address:\n%s", tc.addr, b.String())
		}
	}
}

// TestNoWarningOnLoopbackDebug: a server whose debug port is on loopback
// starts without the warning.
func TestNoWarningOnLoopbackDebug(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(1))
	env := baseEnv(root)
	env["LOG_LEVEL"] = "debug"
	s := start(t, env)
	if strings.Contains(s.log.String(), exposedWarning) {
		t.Errorf("warned of a debug port on loopback:\n%s", s.log)
	}
}
